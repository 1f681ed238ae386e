// End-to-end: the one gate in `vitest run` (test/fixtures/gate). Under stopEarly the looks decide
// a suite's baseline gate too, so an order-consistency regression the full run finds stops the
// run and fails, on CI too; a gold class or a criterion none of whose decisions scored fails its
// threshold as not measured, in the test, the terminal report and the job summary.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const out = useTempDir('sceptic-gate-')
const dist = useDistSnapshot()
const root = join(FIXTURES, 'gate')

const decisionsScored = (name: string) =>
  readFileSync(join(out, `${name}.calls`), 'utf8')
    .trim()
    .split('\n')
    .map(Number)
    .reduce((a, b) => a + b, 0) / 4

test('stopEarly with a baseline: an 8-point order-consistency regression stops the run and fails on CI, as the full run does', async () => {
  const baselines = join(out, 'baselines')
  const env = { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_BASELINES: baselines, GITHUB_ACTIONS: '' }
  // Locally: the baseline is written from a whole run, 5% of decisions answered by slot A.
  const first = await vitest(['run', '--root', root, '-t', 'baseline regression'], { ...env, CI: '', SCEPTIC_FIXTURE_WOBBLY: '5' })
  expect(first.code, first.output).toBe(0)
  expect(first.output).toContain('written')
  rmSync(join(out, 'regression.calls'))
  // On CI, 13%: 80 of 1000 decisions newly inconsistent. Accuracy ≥ 0.7 is decided after a few dozen decisions;
  // the looks decide the baseline gate too, and its sequential test stops the run on the regression.
  const second = await vitest(['run', '--root', root, '-t', 'baseline regression'], { ...env, CI: 'true', SCEPTIC_FIXTURE_WOBBLY: '13' })
  expect(second.code, second.output).toBe(1)
  const scored = decisionsScored('regression')
  expect(scored).toBeLessThan(500)
  expect(second.output).toMatch(/FAIL .*baseline regression > order consistency vs baseline/)
  // The baseline line compares the same decisions on both sides: the scored ones paired with the baseline.
  expect(second.output).toContain(`stopped early after ${scored} of 1000 decisions: on the ${scored} scored decisions paired with the baseline, order consistency`)
  expect(second.output).toMatch(/at baseline on those decisions, \d+ newly inconsistent, 0 newly consistent \(sequential McNemar e = [\d.e+]+\); .*order consistency regressed: e ≥ 1\/α = 20\.00, anytime-valid at α = 0\.05/)
  expect(second.output).not.toContain('the baseline gate compares the whole set')
  // The full run (stopEarly off) fails the same regression with the exact test on every decision.
  rmSync(join(out, 'regression.calls'))
  const full = await vitest(['run', '--root', root, '-t', 'baseline regression'], { ...env, CI: 'true', SCEPTIC_FIXTURE_WOBBLY: '13', SCEPTIC_FIXTURE_FULL: '1' })
  expect(full.code, full.output).toBe(1)
  expect(decisionsScored('regression')).toBe(1000)
  expect(full.output).toMatch(/order consistency 87\.0% vs 95\.0% at baseline: 80 decisions newly inconsistent, 0 newly consistent, one-sided exact McNemar p < 0\.0001/)
}, 240_000)

test('a gold class or a criterion none of whose decisions scored fails as not measured, in the tests, the report and the job summary', async () => {
  const summary = join(out, 'summary.md')
  const env = { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }
  const run = await vitest(['run', '--root', root, '-t', 'never scored'], env)
  expect(run.code, run.output).toBe(1)
  expect(run.output).toMatch(/FAIL .*a class never scored > balancedAccuracy ≥ 0\.9/)
  expect(run.output).toMatch(/expected balancedAccuracy ≥ 0\.9: not measured: gold class "o3" \(10 decisions\) had no scored decision/)
  expect(run.output).toMatch(/FAIL .*a criterion never scored > perCriterion ≥ 0\.9/)
  expect(run.output).toMatch(/expected perCriterion ≥ 0\.9: not measured: criterion "odd" \(20 decisions\) had no scored decision/)
  // The reporter's mark beside the worst criterion is the gate's ✗, not the measured 100%'s ✓.
  expect(run.output).toMatch(/every criterion +✗ ≥ 0\.90 not measured/)
  const markdown = readFileSync(summary, 'utf8')
  expect(markdown).toContain('### ❌ a class never scored')
  expect(markdown).toContain('### ❌ a criterion never scored')
  expect(markdown).toMatch(/\| balanced accuracy \| \*\*100\.0%\*\* \| ≥ 90\.0% \| ❌ \|/)
}, 180_000)
