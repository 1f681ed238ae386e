// End-to-end: a consumer project that installed vitest-sceptic. A CommonJS project (no
// "type": "module") loads the plugin from vitest.config.ts, .cjs and .mjs; the plugin adds
// the eval include to the project's own; machine-readable reporters keep stdout valid.
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FIXTURES, installBuilt, REPO, useDistSnapshot, vitestStreams } from '../helpers/vitest.ts'

const E2E_TIMEOUT = 180_000
const dist = useDistSnapshot()
let project = ''

// The fixture, copied under node_modules/ (so vitest resolves from this repository) with the
// built package installed as node_modules/vitest-sceptic, as `npm i -D vitest-sceptic` would.
beforeAll(() => {
  project = join(REPO, 'node_modules', '.cache', `vitest-sceptic-consumer-${process.pid}`)
  rmSync(project, { recursive: true, force: true })
  cpSync(join(FIXTURES, 'commonjs'), project, { recursive: true })
  installBuilt(project, dist())
})
afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true })
})

const run = (args: string[], env: Record<string, string> = {}) => vitestStreams(['run', '--root', project, ...args], env)
const machine = (reporter: string) => run(['--config', join(project, 'vitest.config.machine.mjs')], { MACHINE_REPORTER: reporter })

describe('a CommonJS consumer project', () => {
  test('vitest.config.ts loads the plugin; the project unit test runs beside the eval; the report follows', async () => {
    const { code, stdout, stderr } = await run([])
    expect(code, stdout + stderr).toBe(0)
    expect(stdout).toContain('src/sum.test.ts')
    expect(stdout).toContain('evals/reader.eval.ts')
    expect(stdout).toMatch(/Test Files +2 passed/)
    expect(stdout).toContain('SCEPTIC REPORT  1 suite')
    expect(stderr).not.toContain('SCEPTIC REPORT')
  }, E2E_TIMEOUT)

  test.each(['vitest.config.cjs', 'vitest.config.mjs'])('%s loads the plugin and keeps Vitest\'s default include', async (config) => {
    const { code, stdout, stderr } = await run(['--config', join(project, config)])
    expect(code, stdout + stderr).toBe(0)
    expect(stdout).toContain('src/sum.test.ts')
    expect(stdout).toContain('evals/reader.eval.ts')
    expect(stdout).toContain('SCEPTIC REPORT  1 suite')
  }, E2E_TIMEOUT)
})

describe('machine-readable reporters on stdout', () => {
  test('json: stdout parses as JSON; the sceptic report goes to stderr', async () => {
    const { code, stdout, stderr } = await machine('json')
    expect(code, stderr).toBe(0)
    const report = JSON.parse(stdout) as { numPassedTests: number; testResults: { name: string }[] }
    expect(report.testResults.map((file) => file.name.replace(/\\/g, '/').split('/').slice(-2).join('/')).sort()).toEqual(['evals/reader.eval.ts', 'src/sum.test.ts'])
    expect(stderr).toContain('SCEPTIC REPORT  1 suite')
  }, E2E_TIMEOUT)

  test('junit: stdout is one XML document; the sceptic report goes to stderr', async () => {
    const { code, stdout, stderr } = await machine('junit')
    expect(code, stderr).toBe(0)
    const xml = stdout.trim()
    expect(xml.startsWith('<?xml')).toBe(true)
    expect(xml.endsWith('</testsuites>')).toBe(true)
    expect(xml.match(/<testsuites[\s>]/g)).toHaveLength(1)
    expect(xml).toContain('name="src/sum.test.ts"')
    expect(xml).not.toContain('SCEPTIC')
    expect(stderr).toContain('SCEPTIC REPORT  1 suite')
  }, E2E_TIMEOUT)
})
