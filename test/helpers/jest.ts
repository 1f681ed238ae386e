// Jest fixture projects: a temp copy of a fixture folder with the built package installed as
// `npm i -D vitest-sceptic` would (no source maps), every other dependency linked from the repository's
// node_modules, and a real `jest` spawned in it, time-bound, with a clean environment.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { FIXTURES, installBuilt, REPO, type Run } from './vitest.ts'

const JEST_BIN = join(REPO, 'node_modules/jest/bin/jest.js')

/** Copy fixture `name` (test/fixtures/jest/<name>) and the shared scorers and data into `dir`, and install the package there. */
export function jestProject(dir: string, name: string, dist: string): string {
  cpSync(join(FIXTURES, 'jest', name), dir, { recursive: true })
  cpSync(join(FIXTURES, 'jest', 'scorers.cjs'), join(dir, 'scorers.cjs'))
  mkdirSync(join(dir, 'data'), { recursive: true })
  cpSync(join(REPO, 'examples/data/tickets.jsonl'), join(dir, 'data/tickets.jsonl'))
  return installedProject(dir, dist)
}

/** Install the package in `dir` as the npm tarball holds it (no source maps), every other dependency linked. */
export function installedProject(dir: string, dist: string): string {
  installBuilt(dir, dist)
  const modules = join(dir, 'node_modules')
  // The tarball ships no source maps (package.json `files`): frames name dist/ files.
  for (const file of readdirSync(join(modules, 'vitest-sceptic/dist'), { recursive: true }) as string[]) if (file.endsWith('.map')) rmSync(join(modules, 'vitest-sceptic/dist', file))
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === 'vitest-sceptic' || entry.startsWith('.')) continue
    symlinkSync(join(REPO, 'node_modules', entry), join(modules, entry), 'dir')
  }
  return dir
}

// Variables a parent Vitest (or a CI runner) sets that would change the child's behaviour.
const SCRUB = /^(VITEST|JEST_|TEST$|NODE_ENV$|NODE_OPTIONS$|CI$|CONTINUOUS_INTEGRATION$|GITHUB_ACTIONS$|GITHUB_STEP_SUMMARY$|GITLAB_CI$|BUILDKITE$|BUILD_NUMBER$|RUN_ID$|TF_BUILD$|SCEPTIC_|FORCE_COLOR$|NO_COLOR$)/

/** Run `jest <args>` in `project` with `env` on top of a scrubbed environment; killed after `timeoutMs`. */
export function jest(project: string, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !SCRUB.test(key)))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [JEST_BIN, '--ci=false', ...args], {
      cwd: project,
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
