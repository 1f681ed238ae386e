// End-to-end: describeDecisions with stopEarly (a plugin default) on the built package
// (test/fixtures/stop-early): suites stop early and say so in the test messages, the
// terminal report, the job summary and the HTML page; a run that would write a baseline
// or a snapshot scores everything; one gated by a stored baseline stops once the looks decide it.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const out = useTempDir('sceptic-stop-early-')
const dist = useDistSnapshot()

const calls = (name: string) => readFileSync(join(out, `${name}.calls`), 'utf8').trim().split('\n').map(Number)
const decisionsScored = (name: string) => calls(name).reduce((a, b) => a + b, 0) / 4

test('suites stop early and say so; a run that could write a baseline or a snapshot scores everything', async () => {
  const baselines = join(out, 'baselines')
  const summary = join(out, 'summary.md')
  // Outside CI (Vitest writes new snapshots, so the callback suite and the missing baseline need a full run).
  const env = { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_BASELINES: baselines, CI: '', GITHUB_ACTIONS: '' }
  const first = await vitest(['run', '--root', join(FIXTURES, 'stop-early')], env)
  expect(first.code, first.output).toBe(1) // the clear regression fails

  // A clear pass: stopped early, the tests passed, the report says after how many decisions.
  const passScored = decisionsScored('clear-pass')
  expect(passScored).toBeLessThan(500)
  expect(Math.max(...calls('clear-pass'))).toBeLessThanOrEqual(64 * 4)
  expect(first.output).toMatch(new RegExp(`stopped early +decided after ${passScored} of 1000 decisions, anytime-valid at α = 0\\.05: accuracy lower bound \\d+\\.\\d% ≥ 70%; order consistency lower bound \\d+\\.\\d% ≥ 80%`))
  expect(first.output).toContain(`(stopped early: ${1000 - passScored} of 1000 not scored; every figure below is from the scored sample)`)
  expect(first.output).not.toMatch(/FAIL .*clear pass/)

  // A clear regression: its test fails with the anytime-valid sentence; the other threshold was not decided.
  const regressionScored = decisionsScored('clear-regression')
  expect(regressionScored).toBeLessThan(400)
  expect(first.output).toMatch(new RegExp(`expected balancedAccuracy ≥ 0\\.75: decided after ${regressionScored} of 1000 decisions, anytime-valid at α = 0\\.01: upper bound \\d+\\.\\d% < 75%`))
  expect(first.output).toMatch(/FAIL .*clear regression > balancedAccuracy ≥ 0\.75/)

  // Opted out, and the callback suite outside CI: every decision scored, and the report says why.
  expect(decisionsScored('opted-out')).toBe(300)
  expect(decisionsScored('with-callback')).toBe(300)
  expect(first.output).toContain('off this run: every decision scored: the assertions callback may write a new snapshot')
  // The baseline was missing: written from a full run, never from a partial one.
  expect(decisionsScored('gated')).toBe(600)
  expect(first.output).toContain('off this run: every decision scored: the baseline is missing and is written from this run')
  expect(existsSync(join(baselines, 'gated-by-a-baseline.json'))).toBe(true)

  // Second run, on GitHub Actions (where Vitest writes no snapshot): the baseline exists, and the looks
  // decide it too: nothing changed, so the run stops once the threshold and the baseline gate are decided.
  rmSync(join(out, 'gated.calls'))
  rmSync(join(out, 'clear-pass.calls'))
  const second = await vitest(['run', '--root', join(FIXTURES, 'stop-early'), '-t', 'clear pass|gated'], { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
  expect(second.code, second.output).toBe(0)
  const markdown = readFileSync(summary, 'utf8')
  expect(markdown).toContain(`stopped early: ${1000 - passScored} of 1000 not scored (figures from the scored sample)`)
  expect(markdown).toMatch(new RegExp(`\\*\\*Stopped early:\\*\\* decided after ${passScored} of 1000 decisions, anytime-valid at α = 0\\.05`))
  const gatedScored = decisionsScored('gated')
  expect(gatedScored).toBeLessThan(300)
  expect(second.output).not.toContain('the baseline gate compares the whole set with the baseline')
  expect(second.output).toMatch(new RegExp(`decided after ${gatedScored} of 600 decisions, anytime-valid at α = 0\\.05: accuracy lower bound \\d+\\.\\d% ≥ 70%; baseline gate: no drop to catch`))
  expect(markdown).toContain(`stopped early: ${600 - gatedScored} of 600 not scored`)

  // vitest -u rewrites baselines: it scores everything.
  rmSync(join(out, 'gated.calls'))
  const update = await vitest(['run', '--root', join(FIXTURES, 'stop-early'), '-t', 'gated', '-u'], env)
  expect(update.code, update.output).toBe(0)
  expect(decisionsScored('gated')).toBe(600)
  expect(update.output).toContain('off this run: every decision scored: vitest -u writes baselines and snapshots')
}, 120_000)
