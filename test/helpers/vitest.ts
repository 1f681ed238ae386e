// Fixture runs: a private copy of dist/ (useDistSnapshot), installed or aliased, and `vitest` spawned
// on a fixture project, time-bound, with a clean environment.
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url))
const VITEST_BIN = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

/** Fixture projects import the built package (`vitest-sceptic` self-reference → dist/). */
export function assertBuilt(): void {
  for (const file of ['dist/index.js', 'dist/vitest/plugin.js', 'dist/vitest/setup.js', 'dist/vitest/reporter.js'])
    if (!existsSync(REPO + file)) throw new Error(`${file} is missing: build first (\`npm test\` does, or run \`npx tsup\`)`)
}

/**
 * A private copy of dist/ for the fixture runs (they find it through
 * SCEPTIC_E2E_DIST). Others may rebuild dist/ while these tests run (tsup cleans it
 * first), which would break a run half-way. The copy lives under node_modules/ so its
 * own imports (vitest, zod, picocolors) resolve as from an installed package. A copy
 * taken mid-rebuild is detected (a relative import with no file) and retaken.
 */
export async function snapshotDist(): Promise<string> {
  assertBuilt()
  const target = join(REPO, 'node_modules', '.cache', `vitest-sceptic-e2e-${process.pid}`, 'dist')
  for (let attempt = 0; attempt < 20; attempt++) {
    rmSync(target, { recursive: true, force: true })
    mkdirSync(target, { recursive: true })
    try {
      cpSync(join(REPO, 'dist'), target, { recursive: true })
      if (complete(target)) return target
    } catch {
      // dist/ changed under us; try again.
    }
    await new Promise((done) => setTimeout(done, 1000))
  }
  throw new Error('could not take a consistent copy of dist/ (is something rebuilding it continuously?)')
}

/** Remove a copy made by {@link snapshotDist}. */
export function removeDistSnapshot(dist: string): void {
  rmSync(dirname(dist), { recursive: true, force: true })
}

/**
 * A private copy of dist/ for this file's fixture runs, taken in `beforeAll` and removed in
 * `afterAll`; the getter gives its path inside hooks and tests.
 */
export function useDistSnapshot(): () => string {
  let dist = ''
  beforeAll(async () => {
    dist = await snapshotDist()
  })
  afterAll(() => {
    if (dist) removeDistSnapshot(dist)
  })
  return () => {
    if (!dist) throw new Error('the dist/ snapshot is taken in beforeAll: read it in a hook or a test')
    return dist
  }
}

/** Install a dist/ copy in `project` as `npm i -D vitest-sceptic` would: node_modules/vitest-sceptic. */
export function installBuilt(project: string, dist: string): void {
  const installed = join(project, 'node_modules', 'vitest-sceptic')
  mkdirSync(installed, { recursive: true })
  cpSync(join(REPO, 'package.json'), join(installed, 'package.json'))
  cpSync(dist, join(installed, 'dist'), { recursive: true })
}

function complete(dir: string): boolean {
  const files = readdirSync(dir, { recursive: true }) as string[]
  for (const file of files) {
    if (!file.endsWith('.js')) continue
    const path = join(dir, file)
    for (const [, spec] of readFileSync(path, 'utf8').matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g))
      if (!existsSync(resolve(dirname(path), spec!))) return false
  }
  for (const entry of ['index.js', 'vitest/plugin.js', 'vitest/setup.js', 'vitest/reporter.js']) if (!existsSync(join(dir, entry))) return false
  return true
}

/** The outcome of one spawned run. */
export interface Run {
  code: number | null
  /** stdout + stderr, ANSI codes removed. */
  output: string
}

// Variables a parent Vitest (or a CI runner) sets that would change the child's behaviour.
const SCRUB = /^(VITEST|TEST$|NODE_ENV$|CI$|CONTINUOUS_INTEGRATION$|GITHUB_ACTIONS$|GITLAB_CI$|BUILDKITE$|BUILD_NUMBER$|RUN_ID$|TF_BUILD$|SCEPTIC_|FORCE_COLOR$|NO_COLOR$|ORT_DISABLE_TELEMETRY$)/

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

/** Like {@link vitest}, with stdout and stderr kept apart (ANSI codes removed from both). */
export function vitestStreams(args: string[], env: Record<string, string> = {}, timeoutMs = 90_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !SCRUB.test(key)))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST_BIN, ...args], { cwd: REPO, env: { ...base, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      // eslint-disable-next-line no-control-regex
      const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '')
      resolve({ code, stdout: plain(stdout), stderr: plain(stderr) })
    })
  })
}
