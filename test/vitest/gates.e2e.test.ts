// End-to-end: gates that used to end green without having checked anything, on the
// built package (test/fixtures/gates). Each case failed to fail on the old code: the
// one-ordering suite had no baseline test, `vitest -u` under CI rewrote the baseline and
// passed, and the reporter and job summary showed ✅ for suites whose tests failed or
// were filtered out.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const E2E_TIMEOUT = 180_000
const GATES = join(FIXTURES, 'gates')
const out = useTempDir('sceptic-gates-')
const dist = useDistSnapshot()
const run = (args: string[], env: Record<string, string> = {}) =>
  vitest(['run', '--root', GATES, ...args], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, ...env })
const baselineFile = join(out, 'baselines', 'gated.json')

test('a configured baseline gate with one ordering fails by name; the report never shows a failed suite as passed', async () => {
  const { code, output } = await run([])
  expect(code, output).toBe(1)
  expect(output).toContain('FAIL  evals/gates.eval.ts > one ordering > order consistency vs baseline')
  expect(output).toContain(
    'AssertionError: the baseline gate needs more than one ordering (debias is "none"), so it checked nothing; ' +
      'use debias "cyclic" (or another multi-ordering mode), or baseline: false to opt out of the gate for this suite',
  )
  expect(output).toMatch(/baseline {11}✗ one-ordering/)
  expect(existsSync(join(out, 'baselines', 'one-ordering.json'))).toBe(false)
  // A failed callback, and a threshold failed by the failure-rate rule, while every number meets its bound.
  expect(output).toMatch(/callback fails {2}evals\/gates\.eval\.ts[\s\S]*?tests {14}✗ 1 passed; 1 failed: "assertions"/)
  expect(output).toMatch(/requests fail {2}evals\/gates\.eval\.ts[\s\S]*?tests {14}✗ 0 passed; 1 failed: "balancedAccuracy ≥ 0\.5"/)
  // The bound was met by the 19 that scored, but its test failed: the mark says so.
  expect(output).toMatch(/requests fail {2}evals\/gates\.eval\.ts[\s\S]*?balanced accuracy {2}100\.0% {3}✗ ≥ 50\.0% test failed/)
  expect(output).toMatch(/gated {2}evals\/gates\.eval\.ts[\s\S]*?baseline {11}✓ written/)
  // A baseline written by a run that failed its threshold is never offered plainly for commit.
  expect(output).toMatch(/failing first baseline {2}evals\/gates\.eval\.ts[\s\S]*?baseline {11}✓ written[\s\S]*?written: order consistency [\d.]+%, by a run that failed balancedAccuracy ≥ 0\.9: review it before you commit it/)
  expect(output).not.toMatch(/failing-first-baseline\.json written: order consistency [\d.]+%; commit it/)
  expect(output).toMatch(/no checks {2}evals\/gates\.eval\.ts[\s\S]*?tests {14}⚠ none: the suite declares no threshold, baseline gate or callback, so nothing was checked/)
  // Half the decisions failed and the callback's assertion held on the other half: it passed before.
  expect(output).toContain('FAIL  evals/gates.eval.ts > half failed, callback gate > assertions')
  expect(output).toContain('"half failed, callback gate": 10 of 20 labelled decisions failed to score (http_error 10); maxFailureRate is 0')
  expect(JSON.parse(readFileSync(baselineFile, 'utf8')).decisions).toHaveProperty('g-0')
}, E2E_TIMEOUT)

test('under CI, -u writes no baseline and fails; the job summary marks failed and filtered-out suites ❌', async () => {
  const before = readFileSync(baselineFile, 'utf8')
  const summary = join(out, 'step-summary.md')
  // A replaced data set (other ids) under CI with -u: the old code rewrote the baseline and passed.
  // The filter leaves out one threshold test (the old summary still said ✅). Vitest 4.1 matches
  // `-t` against the names joined by a space, Vitest 5 by " > ": the pattern takes both.
  const { code, output } = await run(['-u', '-t', '^(?!filtered( > | )balancedAccuracy)'], {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: summary,
    SCEPTIC_FIXTURE_IDS: 'h',
  })
  expect(code, output).toBe(1)
  expect(output).toContain('FAIL  evals/gates.eval.ts > gated > order consistency vs baseline')
  expect(output).toContain('was not refreshed: baselines are never written under CI (CI is set), not even with `vitest -u`')
  expect(readFileSync(baselineFile, 'utf8')).toBe(before)
  const markdown = readFileSync(summary, 'utf8')
  expect(markdown).toContain('### ❌ gated')
  expect(markdown).toContain('### ❌ callback fails\n\n`evals/gates.eval.ts`\n\n**Tests:** 1 passed; 1 failed: “assertions”')
  expect(markdown).toContain('### ❌ requests fail')
  expect(markdown).toContain('### ⚠️ filtered\n\n`evals/gates.eval.ts`\n\n**Tests:** 1 passed; 1 not run (skipped or filtered out, so not checked): “balancedAccuracy ≥ 0.5”')
  const headings = markdown.slice(markdown.indexOf('## Sceptic report')).split('\n').filter((line) => line.startsWith('### '))
  expect(headings).toEqual(['### ❌ one ordering', '### ❌ gated', '### ❌ callback fails', '### ❌ requests fail', '### ⚠️ filtered', '### ❌ half failed, callback gate', '### ⚠️ no checks', '### ❌ failing first baseline'])
  expect(markdown).toContain('| balanced accuracy | **100.0%** | ≥ 50.0% | ⚠️ not run |')
  expect(output).toMatch(/balanced accuracy {2}100\.0% {3}⚠ ≥ 50\.0% not run/)
  expect(output).toMatch(/tests {14}⚠ 1 passed; 1 not run \(skipped or filtered out, so not checked\): "balancedAccuracy ≥ 0\.5"/)
}, E2E_TIMEOUT)

test('locally, a replaced data set pairs with nothing in the baseline and fails (it passed with "0 paired")', async () => {
  const { code, output } = await run(['-t', '^gated'], { SCEPTIC_FIXTURE_IDS: 'h' })
  expect(code, output).toBe(1)
  expect(output).toContain('FAIL  evals/gates.eval.ts > gated > order consistency vs baseline')
  expect(output).toContain('no decision of this run pairs with the baseline (0 changed, 20 new, 20 removed), so nothing was compared')
}, E2E_TIMEOUT)
