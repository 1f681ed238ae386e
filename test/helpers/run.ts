import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** The built CLI (npm test builds before running). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Run a command with a hard time limit; never hangs a test. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command} ${args.join(' ')} did not finish in ${options.timeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`))
    }, options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Run the built `sceptic` CLI. */
export function sceptic(args: readonly string[], options: Parameters<typeof run>[2] = {}): Promise<RunResult> {
  return run(process.execPath, [CLI, ...args], options)
}
