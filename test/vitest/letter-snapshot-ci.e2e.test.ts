// End-to-end: `CI=true vitest run -u` never rewrites a letter-distribution snapshot, the
// baselines' rule: a reference written by the run it gates checks nothing. On the old code
// Vitest's `-u` overrode CI and rewrote the stored letters, and the test passed.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const E2E_TIMEOUT = 120_000
const out = useTempDir('sceptic-letter-snap-')
const dist = useDistSnapshot()
const run = (args: string[], env: Record<string, string> = {}) =>
  vitest(['run', '--root', join(FIXTURES, 'letter-snapshot'), ...args], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, ...env })
const snap = join(out, 'letters.eval.ts.snap')

test('written locally; under CI, -u rewrites nothing and fails with the baselines\' message, moved letters or not', async () => {
  const local = await run([])
  expect(local.code, local.output).toBe(0)
  expect(existsSync(snap)).toBe(true)
  const stored = readFileSync(snap, 'utf8')
  expect(stored).toContain('A=0.333')
  for (const skew of ['1', '0']) {
    const summary = join(out, `summary-${skew}.md`)
    const ci = await run(['-u'], { CI: 'true', SCEPTIC_FIXTURE_SKEW: skew, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
    expect(ci.code, ci.output).toBe(1)
    // The snapshot is the callback's own assertion: its failed test marks the suite failed in the job summary too.
    expect(readFileSync(summary, 'utf8')).toMatch(/^### ❌ letters$/m)
    expect(readFileSync(summary, 'utf8')).toContain('“assertions”')
    expect(ci.output).toContain(
      'the letter-distribution snapshot was not refreshed: letter-distribution snapshots are never written under CI (CI is set), not even with `vitest -u`',
    )
    expect(readFileSync(snap, 'utf8'), `skew ${skew}`).toBe(stored)
  }
  // Locally, -u still refreshes it (Vitest's own rule).
  const refreshed = await run(['-u'], { SCEPTIC_FIXTURE_SKEW: '1' })
  expect(refreshed.code, refreshed.output).toBe(0)
  expect(readFileSync(snap, 'utf8')).toContain('A=1.000')
}, E2E_TIMEOUT)
