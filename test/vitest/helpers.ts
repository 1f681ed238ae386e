// Spawning `vitest run` on a fixture project, time-bound, with a clean environment.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url))
const VITEST_BIN = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

/** Fixture projects import the built package (`vitest-sceptic` self-reference → dist/). */
export function assertBuilt(): void {
  for (const file of ['dist/index.js', 'dist/vitest/plugin.js', 'dist/vitest/setup.js', 'dist/vitest/reporter.js'])
    if (!existsSync(REPO + file)) throw new Error(`${file} is missing: build first (\`npm test\` does, or run \`npx tsup\`)`)
}

/** The outcome of one spawned run. */
export interface Run {
  code: number | null
  /** stdout + stderr, ANSI codes removed. */
  output: string
}

// Variables a parent Vitest (or a CI runner) sets that would change the child's behaviour.
const SCRUB = /^(VITEST|TEST$|NODE_ENV$|CI$|CONTINUOUS_INTEGRATION$|GITHUB_ACTIONS$|GITLAB_CI$|BUILDKITE$|BUILD_NUMBER$|RUN_ID$|TF_BUILD$|SCEPTIC_|FORCE_COLOR$|NO_COLOR$)/

/** Run `vitest <args>` with `env` on top of a scrubbed environment; killed after `timeoutMs`. */
export function vitest(args: string[], env: Record<string, string> = {}, timeoutMs = 90_000): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !SCRUB.test(key)))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST_BIN, ...args], {
      cwd: REPO,
      env: { ...base, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      // eslint-disable-next-line no-control-regex
      resolve({ code, output: output.replace(/\u001b\[[0-9;]*m/g, '') })
    })
  })
}
