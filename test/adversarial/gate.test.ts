// Adversarial cases for the one gate (src/run/gate.ts) and the faces that render it: a check
// whose population was not scored fails as "not measured", the failure-rate rule holds on every
// face, a stopped run's baseline test decides only a regression, and a stopped run's baseline
// line compares the same decisions on both sides.
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, scoreFailure, type Decision, type EvalResult, type FallibleScoreFn } from '../../src/core/index.ts'
import type { EvalResultJson } from '../../src/core/result/result.ts'
import { githubAnnotations, githubSummary, thresholdChecks, type GitHubSuite } from '../../src/report/github.ts'
import { decideRun, gateCheck } from '../../src/run/gate.ts'
import { baselineFromResult } from '../../src/suite/baseline/file.ts'
import { compareSequentially } from '../../src/suite/baseline/sequential.ts'
import { fakeResult } from '../helpers/fake-result.ts'

const OPTIONS = ['o0', 'o1', 'o2', 'o3'].map((id) => ({ id, text: `Option ${id}` }))
/** 40 decisions, gold o0..o3 in turn, criteria "even" (i % 8 < 4) and "odd". */
const DECISIONS: Decision[] = Array.from({ length: 40 }, (_, i) => ({
  id: `d${i}`,
  state: `o${i % 4} ${i}`,
  criterion: { key: i % 8 < 4 ? 'even' : 'odd', options: OPTIONS },
  answer_id: `o${i % 4}`,
}))

/** Reads every decision right, but fails the ones `fails` picks (an HTTP error). */
const failing =
  (fails: (gold: string, criterion: string, i: number) => boolean): FallibleScoreFn =>
  (requests) =>
    requests.map(({ state, criterion }) => {
      const [gold, i] = state.split(' ') as [string, string]
      return fails(gold, criterion.key, Number(i)) ? scoreFailure('http_error', 'HTTP 503') : criterion.options.map((o) => (o.id === gold ? 3 : 1))
    })

const evaluate = (fails: (gold: string, criterion: string, i: number) => boolean, options: Parameters<typeof evaluateWithScorer>[2] = {}) =>
  evaluateWithScorer(DECISIONS, failing(fails), { statistics: false, ...options })
const json = ({ records: _records, ...rest }: EvalResult): EvalResultJson => rest

const suite = (result: EvalResult, thresholds: GitHubSuite['thresholds'], maxFailureRate = 0.5): GitHubSuite => ({ suite: 's', file: 'evals/s.eval.ts', thresholds, maxFailureRate, result: json(result) })

describe('measured means measured: a gold class none of whose decisions scored', () => {
  it('fails balancedAccuracy ≥ 0.9 in the job summary’s checks (the class is absent from the mean, which reads 100%)', async () => {
    const result = await evaluate((state) => state === 'o3')
    expect(result.balancedAccuracy).toBe(1)
    expect(thresholdChecks(suite(result, { balancedAccuracy: 0.9 }))).toMatchObject([{ key: 'balancedAccuracy', pass: false }])
  })

  it('marks the suite ❌ in the job summary', async () => {
    const result = await evaluate((state) => state === 'o3')
    expect(githubSummary([suite(result, { balancedAccuracy: 0.9 })])).toContain('### ❌ s')
  })

  it('annotates the failed check with "not measured" and the class', async () => {
    const result = await evaluate((state) => state === 'o3')
    expect(githubAnnotations([suite(result, { balancedAccuracy: 0.9 })]).join('\n')).toMatch(/balancedAccuracy ≥ 0\.9::balanced accuracy: not measured: gold class "o3" \(10 decisions\)/)
  })

  it('two classes unscored are both named', async () => {
    const result = await evaluate((state) => state === 'o2' || state === 'o3')
    const check = gateCheck(decideRun({ name: 's', thresholds: { balancedAccuracy: 0.5 }, maxFailureRate: 1 }, { result: json(result) }), 'balancedAccuracy')!
    expect(check).toMatchObject({ verdict: 'fail', notMeasured: true })
    expect(check.reason).toMatch(/gold classes "o2" \(10 decisions\), "o3" \(10 decisions\) had no scored decision/)
  })

  it('a class with one scored decision of ten is measured (its recall is over that one)', async () => {
    const result = await evaluate((gold, _, i) => gold === 'o3' && i !== 3)
    expect(result.unscored).toBeUndefined()
    expect(thresholdChecks(suite(result, { balancedAccuracy: 0.9 }, 1))).toMatchObject([{ pass: true }])
  })

  it('accuracy on the same run is measured: its population is the decisions that scored', async () => {
    const result = await evaluate((state) => state === 'o3')
    expect(thresholdChecks(suite(result, { accuracy: 0.9 }))).toMatchObject([{ key: 'accuracy', pass: true }])
  })

  it('the result records the unscored class and each failure’s gold', async () => {
    const result = await evaluate((state) => state === 'o3')
    expect(result.unscored).toEqual({ goldClasses: ['o3'], criteria: [] })
    expect(result.failures.every((f) => f.gold === 'o3')).toBe(true)
  })
})

describe('measured means measured: a criterion none of whose decisions scored', () => {
  it('fails perCriterion ≥ 0.9 (the worst criterion is over the others only)', async () => {
    const result = await evaluate((_, criterion) => criterion === 'odd')
    expect(result.perCriterion).toEqual({ even: 1 })
    expect(thresholdChecks(suite(result, { perCriterion: 0.9 }))).toMatchObject([{ key: 'perCriterion', pass: false }])
  })

  it('says "not measured" and names the criterion, in the annotation too', async () => {
    const result = await evaluate((_, criterion) => criterion === 'odd')
    expect(githubAnnotations([suite(result, { perCriterion: 0.9 })]).join('\n')).toMatch(/not measured: criterion "odd" \(20 decisions\) had no scored decision/)
  })

  it('balancedAccuracy on that run is measured: every gold class scored in the other criterion', async () => {
    const result = await evaluate((_, criterion) => criterion === 'odd')
    expect(thresholdChecks(suite(result, { balancedAccuracy: 0.9 }, 1))).toMatchObject([{ pass: true }])
  })
})

describe('the failure-rate rule on every face', () => {
  it('the job summary fails a suite whose decisions failed beyond maxFailureRate (default 0), even with no tests given', async () => {
    const result = await evaluate(() => false)
    const failed = { ...json(result), failed: 1, failures: [{ id: 'x', criterion: 'even', reason: 'timeout', message: 'slow' }] }
    const md = githubSummary([{ suite: 's', file: 'f', thresholds: { accuracy: 0.5 }, result: failed as EvalResultJson }])
    expect(md).toContain('### ❌ s')
  })

  it('the rule fails every threshold check, not only a check of its own', async () => {
    const result = await evaluate((state) => state === 'o3')
    const gate = decideRun({ name: 's', thresholds: { accuracy: 0.5, balancedAccuracy: 0.1 } }, { result: json(result) })
    expect(gate.checks.map((c) => [c.key, c.verdict])).toEqual([
      ['failureRate', 'fail'],
      ['balancedAccuracy', 'fail'],
      ['accuracy', 'fail'],
    ])
    expect(gate.passed).toBe(false)
  })

  it('a share exactly at maxFailureRate passes; one decision more fails', async () => {
    const result = await evaluate((gold, _, i) => gold === 'o3' && i < 16) // 4 of 40
    expect(decideRun({ name: 's', maxFailureRate: 0.1 }, { result: json(result) }).passed).toBe(true)
    expect(decideRun({ name: 's', maxFailureRate: 0.099 }, { result: json(result) }).passed).toBe(false)
  })
})

describe('decideRun: the gate itself', () => {
  const clean = fakeResult(Array.from({ length: 20 }, () => true))

  it('a run not scored fails every declared check as not measured', () => {
    const gate = decideRun({ name: 's', thresholds: { accuracy: 0.5 }, baseline: true, snapshots: ['letters'] }, { result: undefined })
    expect(gate.passed).toBe(false)
    expect(gate.checks.map((c) => [c.key, c.verdict, c.notMeasured])).toEqual([
      ['failureRate', 'fail', true],
      ['accuracy', 'fail', true],
      ['baseline', 'fail', true],
      ['snapshot:letters', 'fail', true],
    ])
  })

  it('while the run is scoring, what is not measured yet is undecided, and the run has not passed', () => {
    const gate = decideRun({ name: 's', thresholds: { accuracy: 0.5 }, baseline: true }, { result: json(clean), final: false })
    expect(gateCheck(gate, 'baseline')!.verdict).toBe('undecided')
    expect(gateCheck(gate, 'accuracy')!.verdict).toBe('pass')
    expect(gate.passed).toBe(false)
  })

  it('a declared baseline gate that did not run fails as not measured', () => {
    const check = gateCheck(decideRun({ name: 's', baseline: true }, { result: json(clean) }), 'baseline')!
    expect(check).toMatchObject({ verdict: 'fail', notMeasured: true, reason: 'not measured: the baseline gate did not run' })
  })

  it('a stopped run whose sequential baseline test found no regression has not decided the baseline gate', () => {
    const stopped = { ...json(clean), stopEarly: { alpha: 0.05, scored: 20, total: 200, stopped: true, verdicts: { accuracy: 'pass' as const }, bounds: { accuracy: { lower: 0.8, upper: 1 } } } }
    const gate = decideRun({ name: 's', thresholds: { accuracy: 0.5 }, baseline: true }, { result: stopped, baseline: { status: 'pass', message: 'no regression detected', eValue: 1 } })
    expect(gateCheck(gate, 'accuracy')!.verdict).toBe('pass')
    expect(gateCheck(gate, 'baseline')).toMatchObject({ verdict: 'fail', notMeasured: true })
    expect(gateCheck(gate, 'baseline')!.reason).toMatch(/^not measured: the run stopped after 20 of 200 decisions before the baseline gate was decided/)
  })

  it('a stopped run’s sequential regression is decided: it fails', () => {
    const stopped = { ...json(clean), stopEarly: { alpha: 0.05, scored: 20, total: 200, stopped: true, verdicts: {}, bounds: {} } }
    const check = gateCheck(decideRun({ name: 's', baseline: true }, { result: stopped, baseline: { status: 'regressed', message: 'regressed', eValue: 40 } }), 'baseline')!
    expect(check).toMatchObject({ verdict: 'fail', notMeasured: false })
  })

  it('a threshold a stopped run left undecided fails as not measured', () => {
    const stopped = { ...json(clean), stopEarly: { alpha: 0.05, scored: 20, total: 200, stopped: true, verdicts: { accuracy: 'fail' as const, orderConsistency: 'undecided' as const }, bounds: {} } }
    const gate = decideRun({ name: 's', thresholds: { accuracy: 0.95, orderConsistency: 0.5 } }, { result: stopped })
    expect(gateCheck(gate, 'orderConsistency')).toMatchObject({ verdict: 'fail', notMeasured: true })
    expect(gateCheck(gate, 'orderConsistency')!.reason).toMatch(/^not measured: /)
  })

  it('a threshold on a metric this run could not measure (null) fails as not measured', () => {
    const check = gateCheck(decideRun({ name: 's', thresholds: { orderConsistency: 0.5 } }, { result: { ...json(clean), orderConsistency: null } }), 'orderConsistency')!
    expect(check).toMatchObject({ verdict: 'fail', notMeasured: true, value: null })
  })

  it('an unknown threshold key fails, never vanishes', () => {
    const check = gateCheck(decideRun({ name: 's', thresholds: { acuracy: 0.5 } }, { result: json(clean) }), 'acuracy')!
    expect(check.verdict).toBe('fail')
    expect(check.reason).toMatch(/unknown threshold "acuracy"/)
  })

  it('a letter snapshot declared but not compared fails; one that matched passes', () => {
    const declared = { name: 's', snapshots: ['letters', 'other'] }
    const gate = decideRun(declared, { result: json(clean), snapshots: { letters: { matched: true, message: 'matched' } } })
    expect(gate.checks.filter((c) => c.key.startsWith('snapshot:')).map((c) => c.verdict)).toEqual(['pass', 'fail'])
  })

  it('a value below its bound says which side, a value above a max the other', () => {
    const gate = decideRun({ name: 's', thresholds: { balancedAccuracy: 0.9, slotSensitivityGap: { max: 0.1 } } }, { result: { ...json(clean), slotSensitivityGap: 0.3 } })
    expect(gateCheck(gate, 'balancedAccuracy')).toMatchObject({ verdict: 'fail', outside: 'below', notMeasured: false })
    expect(gateCheck(gate, 'slotSensitivityGap')).toMatchObject({ verdict: 'fail', outside: 'above' })
  })
})

describe('a stopped run’s baseline line compares the same decisions on both sides', () => {
  it('prints the baseline’s rate over the paired decisions, not over its whole set', () => {
    // The baseline: 200 decisions, 127 consistent (63.5%); the first 40, 21 of them consistent (52.5%).
    const pattern = Array.from({ length: 200 }, (_, i) => (i < 40 ? i < 21 : i < 40 + 106))
    const baseline = baselineFromResult('s', fakeResult(pattern))
    // The stopped run scored those 40 and answered them exactly as at baseline.
    const current = baselineFromResult('s', fakeResult(pattern.slice(0, 40)))
    const outcome = compareSequentially(baseline, current, { alpha: 0.05, detectableDrop: 0.05 }, { alpha: 0.05, scored: 40, total: 200, stopped: true, verdicts: {}, bounds: {} })
    expect(outcome.message).toContain('order consistency 52.5% vs 52.5% at baseline')
    expect(outcome.message).not.toContain('63.5%')
  })
})
