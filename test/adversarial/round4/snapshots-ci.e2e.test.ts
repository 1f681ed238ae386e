// Under CI a letter-distribution snapshot is never written, in any update mode of either
// runner, and a missing one fails: a reference written by the run it gates checks nothing.
// Before the fix only `-u`/`all` was refused: `CI=true vitest run --update=new` and
// `CI=true jest --ci=false` wrote the snapshot ("1 written") and exited 0.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jest, jestProject } from '../../helpers/jest.ts'
import { useTempDir } from '../../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../../helpers/vitest.ts'

const E2E_TIMEOUT = 240_000
const work = useTempDir('sceptic-snap-ci-')
const dist = useDistSnapshot()
const CI = { CI: 'true' }
/** Each flag set named for the test title. */
const sweep = (flags: string[][]): [string, string[]][] => flags.map((args) => [args.join(' ') || '(no flag)', args])

describe('Vitest: CI=true, no stored letter snapshot', () => {
  const out = join(work, 'vitest')
  const snap = join(out, 'letters.eval.ts.snap')
  const run = (args: string[], env: Record<string, string> = {}) =>
    vitest(['run', '--root', join(FIXTURES, 'letter-snapshot'), ...args], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, ...env })

  it.each(sweep([['--update=new'], ['--update=none'], [], ['-u'], ['--update=all']]))('vitest run %s: writes nothing and fails', async (_, args) => {
    rmSync(snap, { force: true })
    const ci = await run(args, CI)
    expect(ci.code, ci.output).toBe(1)
    expect(existsSync(snap), 'snapshot written under CI').toBe(false)
    expect(ci.output).toMatch(/letter-distribution snapshots? (are never written|was not refreshed)|never written under CI/)
  }, E2E_TIMEOUT)

  it('stored, then --update=new under CI with moved letters: fails and leaves it as stored', async () => {
    const local = await run([])
    expect(local.code, local.output).toBe(0)
    const stored = readFileSync(snap, 'utf8')
    const ci = await run(['--update=new'], { ...CI, SCEPTIC_FIXTURE_SKEW: '1' })
    expect(ci.code, ci.output).toBe(1)
    expect(readFileSync(snap, 'utf8')).toBe(stored)
    rmSync(snap)
  }, E2E_TIMEOUT)
})

describe('Jest: CI=true, a stored baseline, no stored letter snapshot', () => {
  let project = ''
  const out = join(work, 'jest-out')
  const runCjs = (args: string[], env: Record<string, string> = {}) =>
    jest((project ||= jestProject(join(work, 'jest'), 'cjs', dist())), ['evals/triage', ...args], { SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_FACE: 'jest-cjs', ...env })
  const snap = () => join(project, 'evals/__snapshots__/triage.eval.js.snap')

  it.each(sweep([['--ci=false'], ['--ci'], ['-u'], ['--ci=false', '-u']]))('jest %s: writes nothing and fails the assertions test', async (_, args) => {
    // Written locally first (the baseline too), then the snapshot removed: only it is missing.
    if (!existsSync(join(out, 'baselines/triage.json'))) {
      const local = await runCjs([])
      expect(local.code, local.output).toBe(0)
    }
    rmSync(snap(), { force: true })
    const ci = await runCjs(args, CI)
    expect(ci.code, ci.output).toBe(1)
    expect(existsSync(snap()) && readFileSync(snap(), 'utf8').includes('triage assertions 1'), 'snapshot written under CI').toBe(false)
    expect(ci.output).toContain('✕ assertions')
    expect(ci.output).toMatch(/never written under CI \(CI is set\)/)
  }, E2E_TIMEOUT)
})
