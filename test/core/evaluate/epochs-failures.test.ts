import { describe, expect, it } from 'vitest'
import { ConfigError, ScorerError, evaluateWithScorer, type FallibleScoreFn, type ScoreFn } from '../../../src/core/index.ts'
import { render } from '../../../src/report/index.ts'
import { atLeast, max, meanReducer as mean, median, mode, passAt } from '../../../src/core/evaluate/reducers.ts'
import { scoreFailure } from '../../../src/core/scorer/contract.ts'
import { alwaysFirst, byId, decision } from '../../helpers/decisions.ts'

const quiet = { onWarning: () => {} }
const C = 1
const I = 0

describe('reducers: Inspect AI semantics (docs/design.md#contracts)', () => {
  it('pass_at with 3 epochs and 2 correct is 2/3 for k = 1 and 1.0 for k = 2', () => {
    expect(passAt(1).reduce([C, I, C])).toBeCloseTo(2 / 3, 12)
    expect(passAt(2).reduce([C, I, C])).toBe(1)
    // 1 − C(3,2)/C(5,2) = 0.7 for n = 5, c = 2, k = 2 (Chen et al. estimator).
    expect(passAt(2).reduce([C, I, I, C, I])).toBeCloseTo(0.7, 12)
    expect(() => passAt(4).reduce([C, I, C])).toThrow(ConfigError)
  })
  it('mean of C, I, C is 0.6667; a single C reduces to 1.0', () => {
    expect(mean.reduce([C, I, C])).toBeCloseTo(0.6667, 4)
    expect(mean.reduce([C])).toBe(1)
  })
  it('at_least_2 over [1, 0, 1] is 1; median, mode, max', () => {
    expect(atLeast(2).reduce([1, 0, 1])).toBe(1)
    expect(atLeast(3).reduce([1, 0, 1])).toBe(0)
    expect(median.reduce([0, 1, 1, 0])).toBe(0.5)
    expect(mode.reduce([0, 1, 0])).toBe(0)
    expect(max.reduce([0, 0.5, 0])).toBe(0.5)
  })
})

describe('epochs', () => {
  it('each (decision, ordering) is scored k times, each request carrying its epoch index', async () => {
    const seen: (number | undefined)[] = []
    const scorer: ScoreFn = (requests) => {
      seen.push(...requests.map((r) => r.epoch))
      return requests.map((r) => r.criterion.options.map(() => 1))
    }
    const result = await evaluateWithScorer([decision(3, 0), decision(3, 1)], scorer, { debias: 'cyclic', epochs: 3, ...quiet })
    expect(seen).toEqual(Array.from({ length: 2 * 3 }, () => [0, 1, 2]).flat())
    expect(result.manifest).toMatchObject({ epochs: 3, forwardPasses: 18, reducer: 'mean' })
  })

  it('a sampled one-hot scorer right in 2 of 3 epochs: value 2/3 under mean, 1 under pass_at_2, flagged in the report', async () => {
    // Epochs 0 and 2 answer o0 (gold), epoch 1 answers o1; no slot effect at all.
    const sampler: ScoreFn = (requests) =>
      requests.map((r) => r.criterion.options.map((o) => (o.id === (r.epoch === 1 ? 'o1' : 'o0') ? 1 : 0)))
    const rows = [decision(3, 0, { id: 'a' })]
    const byMean = await evaluateWithScorer(rows, sampler, { debias: 'cyclic', epochs: 3, ...quiet })
    expect(byMean.records[0]).toMatchObject({ epochValues: [1, 0, 1], prediction: 'o0' })
    expect(byMean.records[0]!.value).toBeCloseTo(2 / 3, 12)
    expect(byMean.score).toBeCloseTo(2 / 3, 12)
    // Probabilities are the epoch average: 2/3 on o0, 1/3 on o1.
    expect(byMean.records[0]!.probabilities.o0).toBeCloseTo(2 / 3, 12)
    expect(render(byMean, { color: false })).toMatch(/^score {14}0\.667 {3}\(mean over 3 epochs\)$/m)
    const byPass = await evaluateWithScorer(rows, sampler, { debias: 'cyclic', epochs: 3, reducer: passAt(2), ...quiet })
    expect(byPass.score).toBe(1)
    expect(byPass.manifest.reducer).toBe('pass_at_2')
  })

  it('reducers run at one epoch too, and metrics see floats: score equals accuracy under mean', async () => {
    const rows = [decision(2, 0), decision(2, 1), decision(2, 1)]
    const result = await evaluateWithScorer(rows, alwaysFirst, quiet)
    expect(result.score).toBe(result.accuracy)
    expect(result.records[0]!.epochValues).toBeUndefined()
  })

  it('an unknown reducer or a bad epoch count is a ConfigError', async () => {
    await expect(evaluateWithScorer([decision(2, 0)], alwaysFirst, { reducer: 'sum' as never, ...quiet })).rejects.toThrow(/reducer "sum" is not known/)
    await expect(evaluateWithScorer([decision(2, 0)], alwaysFirst, { epochs: 0, ...quiet })).rejects.toThrow(ConfigError)
  })
})

describe('custom metrics', () => {
  const rows = [decision(3, 0, { id: 'a' }), decision(3, 1, { id: 'b' }), decision(3, 2, { id: 'c' })]
  const reader = byId((id) => ({ o0: 3, o1: 2, o2: 1 })[id]!)

  it('are computed over frozen reduced scores, shown in the report and JSON', async () => {
    const result = await evaluateWithScorer(rows, reader, {
      debias: 'cyclic',
      metrics: {
        meanConfidence: (scores) => scores.reduce((sum, s) => sum + s.confidence, 0) / scores.length,
        consistentShare: (scores) => scores.filter((s) => s.consistent).length / scores.length,
        decisions: (scores) => scores.length,
      },
      ...quiet,
    })
    expect(result.metrics.consistentShare).toBe(1)
    expect(result.metrics.decisions).toBe(3)
    expect(result.metrics.meanConfidence).toBeCloseTo(0.5, 12) // 3/6 on o0 for every decision
    expect(render(result, { color: false })).toMatch(/^meanConfidence {5}0\.500$/m)
  })

  it('a metric that writes to a score throws, naming the metric; so does one returning NaN', async () => {
    const write = evaluateWithScorer(rows, reader, {
      metrics: {
        sneaky: (scores) => {
          ;(scores[0] as { value: number }).value = 0
          return 0
        },
      },
      ...quiet,
    })
    await expect(write).rejects.toThrow(ConfigError)
    await expect(write).rejects.toThrow(/custom metric "sneaky" threw: Cannot assign to read only property 'value'/)
    const nested = evaluateWithScorer(rows, reader, { metrics: { deep: (s) => ((s[0]!.epochValues as number[])[0] = 0) }, ...quiet })
    await expect(nested).rejects.toThrow(/custom metric "deep" threw/)
    await expect(evaluateWithScorer(rows, reader, { metrics: { bad: () => NaN }, ...quiet })).rejects.toThrow(/returned NaN/)
  })
})

describe('failures are counted, never dropped', () => {
  const rows = Array.from({ length: 6 }, (_, i) => decision(3, i % 3, { id: `d${i}` }))
  const flaky: FallibleScoreFn = (requests) =>
    requests.map((r) => {
      if (r.state.includes('timeout') || r.prompt.includes('Option 9')) return scoreFailure('timeout', 'took too long')
      return r.criterion.options.map((o) => (o.id === 'o0' ? 3 : 1))
    })

  it('a decision with a failed request is failed; metrics are over the rest; scored + failed + unlabelled = rows read', async () => {
    const data = [
      ...rows,
      { ...decision(3, 0, { id: 't1' }), state: 'timeout here' },
      { ...decision(3, 0, { id: 't2' }), state: 'timeout again' },
      decision(3, null),
    ]
    let calls = 0
    const scorer: FallibleScoreFn = (requests) => {
      calls++
      return requests.map((r, i) =>
        r.state === 'timeout again' && i % 3 === 2 ? scoreFailure('http_error', 'HTTP 503') : (flaky([r]) as never[])[0]!,
      )
    }
    const result = await evaluateWithScorer(data, scorer, { debias: 'cyclic', ...quiet })
    expect(calls).toBe(1)
    expect(result.n).toBe(6)
    expect(result.failed).toBe(2)
    expect(result.n + result.failed + result.manifest.unlabelledSkipped).toBe(data.length)
    expect(result.failures).toEqual([
      { id: 't1', criterion: 'c', gold: 'o0', reason: 'timeout', message: 'took too long' },
      { id: 't2', criterion: 'c', gold: 'o0', reason: 'timeout', message: 'took too long' },
    ])
    expect(result.manifest).toMatchObject({ decisions: 8, failed: 2, failedByReason: { timeout: 2 } })
    expect(result.records.map((r) => r.id)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5'])
    // Letters count only scored decisions: 6 decisions × 3 orderings.
    expect(Object.values(result.letterDistribution).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    expect(result.orderConsistency).toBe(1)
    expect(render(result, { color: false })).toMatch(/^failed {13}2 {3}\(timeout 2; metrics are over the 6 scored\)$/m)
  })

  it('flags are recorded per decision and counted in the report', async () => {
    const scorer: FallibleScoreFn = (requests) =>
      requests.map((r, i) => (r.criterion.options[0]!.id === 'o0' && i % 3 === 0 ? { probabilities: [2, 1, 1], flags: ['missing_logprobs'] } : [1, 2, 1]))
    const result = await evaluateWithScorer(rows, scorer, { debias: 'cyclic', ...quiet })
    expect(result.records[0]!.flags).toEqual(['missing_logprobs'])
    expect(result.manifest.flagged).toEqual({ missing_logprobs: 6 })
    expect(render(result, { color: false })).toMatch(/^flagged {12}6 {3}\(missing_logprobs 6\)$/m)
  })

  it('when every decision fails, the run is a ScorerError that says why', async () => {
    const down: FallibleScoreFn = (requests) => requests.map(() => scoreFailure('http_error', 'HTTP 500 from POST /v1/completions'))
    await expect(evaluateWithScorer(rows, down, quiet)).rejects.toThrow(ScorerError)
    await expect(evaluateWithScorer(rows, down, quiet)).rejects.toThrow(/every decision failed to score \(http_error 6\); the first: HTTP 500/)
  })

  it('a scorer call that throws fails the decisions of that call only, named by them; the other calls go on', async () => {
    // 6 decisions × 3 orderings in chunks of 6 requests: 3 calls of 2 decisions each; the second throws (a 503).
    let calls = 0
    const scorer: ScoreFn = (requests) => {
      if (++calls === 2) throw new Error('HTTP 503 Service Unavailable')
      return requests.map((r) => r.criterion.options.map((o) => (o.id === 'o0' ? 3 : 1)))
    }
    const result = await evaluateWithScorer(rows, scorer, { debias: 'cyclic', chunkSize: 6, ...quiet })
    expect(calls).toBe(3)
    expect(result.n).toBe(4)
    expect(result.failures.map((f) => [f.id, f.reason])).toEqual([['d2', 'error'], ['d3', 'error']])
    for (const failure of result.failures)
      expect(failure.message).toBe(
        'the scorer threw on request 6 (decision "d2", criterion "c", ordering 1 of 3) … request 11 (decision "d3", criterion "c", ordering 3 of 3): HTTP 503 Service Unavailable',
      )
    expect(result.records.map((r) => r.id)).toEqual(['d0', 'd1', 'd4', 'd5'])
    expect(render(result, { color: false })).toMatch(/^failed {13}2 {3}\(error 2; metrics are over the 4 scored\)\n {2}first: decision "d2": the scorer threw on request 6 /m)
  })

  it('when every call throws, the run is a ScorerError with the first throw, its stack kept as the cause', async () => {
    const refused = new Error('connection refused')
    const error = (await evaluateWithScorer(rows, () => { throw refused }, { debias: 'cyclic', chunkSize: 6, ...quiet }).catch((e: unknown) => e)) as Error
    expect(error).toBeInstanceOf(ScorerError)
    expect(error.message).toMatch(/^the scorer threw on request 0 \(decision "d0".*\) … request 5 \(decision "d1".*\): connection refused$/)
    expect(error.cause).toBe(refused)
  })

  it('a failed content-free request in calibrated mode fails the run, naming the criterion', async () => {
    const scorer: FallibleScoreFn = (requests) => requests.map((r) => (r.state === 'N/A' ? scoreFailure('timeout', 'slow') : [1, 1, 1]))
    await expect(evaluateWithScorer(rows, scorer, { debias: 'calibrated', ...quiet })).rejects.toThrow(/content-free request for criterion "c" failed \(timeout\)/)
  })
})
