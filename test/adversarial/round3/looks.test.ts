// The baseline gate decided at the looks of a run that may stop early: the anytime-valid
// "no drop of the detectable drop or more" e-process (its level checked by an exact
// enumeration and by simulation at the boundary, oracles apart from the code), the looks
// that stop only once the baseline gate is decided (or on a clear regression), and the gate
// that passes a stopped run's baseline only on that verdict.
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, type DecisionRecord } from '../../../src/core/index.ts'
import { mcnemarNotWorseEValue } from '../../../src/core/math/sequential-mcnemar.ts'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { pairedVerdict, type BaselineLooks, type PairFlags } from '../../../src/core/thresholds/sequential/paired.ts'
import { stopEarlyLine, stopEarlySentence } from '../../../src/core/thresholds/sequential/verdict.ts'
import { decideRun, gateCheck } from '../../../src/run/gate.ts'
import type { BaselineFile } from '../../../src/suite/baseline/file.ts'
import { compareSequentially } from '../../../src/suite/baseline/sequential.ts'
import { fullRunReason } from '../../../src/suite/score-suite.ts'
import { bernoulliReader, bernoulliSet } from '../../helpers/bernoulli-set.ts'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** ln of the multinomial coefficient n! / (a! b! c!), by sums of logs (the oracle's own). */
function logMultinomial(n: number, a: number, b: number): number {
  let s = 0
  for (let k = 2; k <= n; k++) s += Math.log(k)
  for (const m of [a, b, n - a - b]) for (let k = 2; k <= m; k++) s -= Math.log(k)
  return s
}

describe('the "not worse by the detectable drop" e-process', () => {
  it('has expectation ≤ 1 under every law with mean drop = the margin (exact enumeration over the trinomial law)', () => {
    const margin = 0.1
    // Laws with E[D] = P(worse) − P(better) = margin: the boundary, where a pass is false.
    for (const pBetter of [0, 0.05, 0.2]) {
      const pWorse = margin + pBetter
      for (const n of [1, 5, 20, 60]) {
        let expectation = 0
        for (let w = 0; w <= n; w++)
          for (let b = 0; b <= n - w; b++) {
            const logP = logMultinomial(n, w, b) + (w ? w * Math.log(pWorse) : 0) + (b ? b * Math.log(pBetter) : 0) + (n - w - b ? (n - w - b) * Math.log(1 - pWorse - pBetter) : 0)
            if (pBetter === 0 && b > 0) continue
            expectation += Math.exp(logP) * mcnemarNotWorseEValue(w, b, n, margin)
          }
        expect(expectation).toBeLessThanOrEqual(1 + 1e-9)
        expect(expectation).toBeGreaterThan(0.99) // a martingale at the boundary: not a vacuous bound
      }
    }
  })

  it('crosses 1/α at some look in at most α of runs at the boundary, and decides no change quickly', () => {
    const alpha = 0.05
    const margin = 0.1
    const runs = 1500
    let crossed = 0
    for (let r = 0; r < runs; r++) {
      const random = mulberry32(9_000 + r)
      let w = 0
      let b = 0
      for (let n = 1; n <= 400; n++) {
        const u = random()
        if (u < margin + 0.02) w++
        else if (u < margin + 0.04) b++
        if (n % 8 === 0 && mcnemarNotWorseEValue(w, b, n, margin) >= 1 / alpha) {
          crossed++
          break
        }
      }
    }
    expect(crossed / runs).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs))
    // Nothing changed in 60 decisions: the drop is ruled out.
    expect(mcnemarNotWorseEValue(0, 0, 60, margin)).toBeGreaterThanOrEqual(20)
    expect(mcnemarNotWorseEValue(0, 0, 20, margin)).toBeLessThan(20)
    // More pairs the bad way never raise it.
    expect(mcnemarNotWorseEValue(3, 0, 100, margin)).toBeLessThan(mcnemarNotWorseEValue(2, 0, 100, margin))
  })

  it('an 8-point drop (below the 10-point detectable drop) almost never passes at the looks: a pass rules out half of it', () => {
    // 90% consistent at baseline, 8% of decisions newly inconsistent; a look every 10 decisions, as the default batch of 1000.
    const runs = 600
    let passed = 0
    for (let r = 0; r < runs; r++) {
      const random = mulberry32(31_000 + r)
      let worse = 0
      let verdict = 'undecided'
      for (let n = 1; n <= 1000 && verdict === 'undecided'; n++) {
        if (random() < 0.08) worse++
        if (n % 10 === 0) verdict = pairedVerdict({ paired: n, comparable: n, worse, better: 0, strictWorse: worse, strictBetter: 0 }, 0.05, 0.1).verdict
      }
      if (verdict === 'pass') passed++
    }
    expect(passed / runs).toBeLessThanOrEqual(0.01)
  })

  it('the paired verdict: a regression fails, no change passes, a drop at the margin stays open', () => {
    expect(pairedVerdict({ paired: 100, comparable: 100, worse: 0, better: 0, strictWorse: 0, strictBetter: 0 }, 0.05, 0.1).verdict).toBe('pass')
    expect(pairedVerdict({ paired: 100, comparable: 100, worse: 8, better: 0, strictWorse: 0, strictBetter: 0 }, 0.05, 0.1).verdict).toBe('fail')
    expect(pairedVerdict({ paired: 100, comparable: 100, worse: 0, better: 0, strictWorse: 8, strictBetter: 0 }, 0.05, 0.1).verdict).toBe('fail')
    expect(pairedVerdict({ paired: 100, comparable: 100, worse: 10, better: 5, strictWorse: 0, strictBetter: 0 }, 0.05, 0.1).verdict).toBe('undecided')
    // Circular accuracy must be ruled out too: order consistency alone does not pass.
    expect(pairedVerdict({ paired: 100, comparable: 100, worse: 0, better: 0, strictWorse: 6, strictBetter: 0 }, 0.05, 0.1).verdict).toBe('undecided')
  })
})

/** The baseline of a set whose every decision was consistent and, when right, strict: by id. */
function steadyBaseline(n: number, seed: number): Map<string, PairFlags> {
  const out = new Map<string, PairFlags>()
  for (const d of bernoulliSet(n, 0.9, seed)) out.set(d.id!, { consistent: true, strict: d.state.includes('right') })
  return out
}
const looksOf = (flags: Map<string, PairFlags>): BaselineLooks => ({ alpha: 0.05, detectableDrop: 0.1, pair: (record: DecisionRecord) => flags.get(record.id) })

describe('the looks decide the baseline gate', () => {
  it('no change: the run stops once the thresholds and the baseline gate are decided', async () => {
    const result = await evaluateWithScorer(bernoulliSet(1000, 0.9, 11), bernoulliReader, { thresholds: { accuracy: 0.7 }, stopEarly: true, statistics: false, baseline: looksOf(steadyBaseline(1000, 11)) })
    expect(result.stopEarly).toMatchObject({ stopped: true, baseline: 'pass', verdicts: { accuracy: 'pass' } })
    expect(result.stopEarly!.scored).toBeLessThan(300)
    expect(stopEarlyLine(result)).toMatch(/^decided after \d+ of 1000 decisions, anytime-valid at α = 0\.05: accuracy lower bound .*; baseline gate: no drop to catch$/)
  })

  it('an 8-point order-consistency regression stops the run and fails, with no threshold declared', async () => {
    // 8% of decisions newly wobbly: inconsistent now, consistent at baseline.
    const data = bernoulliSet(1000, 0.9, 12, { consistentRate: 0.92 })
    const result = await evaluateWithScorer(data, bernoulliReader, { stopEarly: true, statistics: false, baseline: looksOf(steadyBaseline(1000, 12)) })
    expect(result.stopEarly).toMatchObject({ stopped: true, baseline: 'fail' })
    expect(result.stopEarly!.scored).toBeLessThan(400)
    expect(stopEarlyLine(result)).toContain('baseline gate: regressed')
  })

  it('thresholds decided early do not stop a run whose baseline gate is still open', async () => {
    // A 10-point drop (the margin): neither side is decided soon, so the run goes on past the thresholds' stop.
    const data = bernoulliSet(1000, 0.95, 13, { consistentRate: 0.9 })
    const baseline = steadyBaseline(1000, 13)
    // Half the newly wobbly decisions were already wobbly at baseline: a drop of about 5 points, better 0.
    let k = 0
    for (const d of data) if (d.state.includes('wobbly') && k++ % 2 === 0) baseline.set(d.id!, { consistent: false, strict: false })
    const without = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, stopEarly: true, statistics: false })
    const withGate = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, stopEarly: true, statistics: false, baseline: looksOf(baseline) })
    expect(without.stopEarly!.scored).toBeLessThan(100)
    expect(withGate.stopEarly!.scored).toBeGreaterThan(without.stopEarly!.scored)
    expect(withGate.stopEarly!.baseline).not.toBe('undecided')
  })
})

/** A baseline-shaped file of `n` decisions, consistent and strict unless listed. */
function file(n: number, inconsistent: ReadonlySet<number> = new Set()): BaselineFile {
  const decisions: BaselineFile['decisions'] = {}
  for (let i = 0; i < n; i++) decisions[`d${i}`] = { fingerprint: `f${i}`, consistent: !inconsistent.has(i), strict: !inconsistent.has(i) }
  return { schema: 2, suite: 's', debias: 'cyclic', scorer: 'x', n, orderConsistency: 1 - inconsistent.size / n, balancedAccuracy: 0.8, circularAccuracy: 1 - inconsistent.size / n, decisions }
}

describe('the gate on a stopped run’s baseline line', () => {
  const stop = { alpha: 0.05, scored: 100, total: 1000, stopped: true, verdicts: { accuracy: 'pass' as const }, bounds: {} }
  const gate = { alpha: 0.05, detectableDrop: 0.1 }
  const run = (baseline: ReturnType<typeof compareSequentially>) =>
    gateCheck(decideRun({ name: 's', thresholds: { accuracy: 0.5 }, baseline: true }, { result: { n: 100, failed: 0, accuracy: 0.9, metrics: {}, manifest: {}, stopEarly: stop } as never, baseline }), 'baseline')!

  it('passes when the looks ruled the detectable drop out, on the same decisions both sides', () => {
    const outcome = compareSequentially(file(1000), file(100), gate, stop)
    expect(outcome).toMatchObject({ status: 'pass', sequential: 'pass', worse: 0, paired: 100 })
    expect(outcome.message).toContain('order consistency 100.0% vs 100.0% at baseline on those decisions')
    expect(outcome.message).toMatch(/no drop of 5\.0% or more: e = [\d.e+]+ \(order consistency\) and [\d.e+]+ \(circular accuracy\) ≥ 1\/α = 20\.00/)
    expect(run(outcome)).toMatchObject({ verdict: 'pass', notMeasured: false })
  })

  it('is not measured when the looks left it open, and fails on a regression', () => {
    const open = compareSequentially(file(1000), file(100, new Set([0, 1, 2, 3])), gate, stop)
    expect(open.sequential).toBe('undecided')
    expect(run(open)).toMatchObject({ verdict: 'fail', notMeasured: true })
    const regressed = compareSequentially(file(1000), file(100, new Set([0, 1, 2, 3, 4, 5, 6, 7])), gate, stop)
    expect(run(regressed)).toMatchObject({ verdict: 'fail', notMeasured: false })
  })
})

describe('the sentences of a run the baseline gate stopped', () => {
  it('a threshold left open names the baseline gate as what failed', () => {
    const stop = { alpha: 0.05, scored: 90, total: 1000, stopped: true, verdicts: { accuracy: 'undecided' as const }, bounds: { accuracy: { lower: 0.6, upper: 0.9 } }, baseline: 'fail' as const }
    expect(stopEarlySentence(stop, 'accuracy', 0.7)).toBe('not decided: the run stopped after 90 of 1000 decisions when the baseline gate failed; score every decision (without stopEarly) to measure it')
    const line = stopEarlyLine({ manifest: { thresholds: {} }, stopEarly: { ...stop, verdicts: {}, bounds: {} } } as never)
    expect(line).toBe('decided after 90 of 1000 decisions, anytime-valid at α = 0.05: baseline gate: regressed')
  })
})

describe('a suite with a stored baseline may stop early', () => {
  it('fullRunReason no longer forces a full run for a stored baseline (the looks decide it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sceptic-looks-'))
    try {
      writeFileSync(join(dir, 's.json'), '{}')
      const context = { root: dir, baseline: dir, update: 'none', progress: false, alpha: 0.05, detectableDrop: 0.1 } as const
      expect(fullRunReason('s', { data: [], scorer: () => [] } as never, false, context, 'none')).toBeUndefined()
      expect(fullRunReason('s', { data: [], scorer: () => [] } as never, false, context, 'new')).toBeUndefined()
      // A missing baseline is still written from a whole run.
      expect(fullRunReason('t', { data: [], scorer: () => [] } as never, false, context, 'new')).toMatch(/the baseline is missing/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
