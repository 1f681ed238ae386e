import { describe, expect, it } from 'vitest'
import {
  ConfigError,
  balancedAccuracy,
  brierScore,
  chanceAccuracy,
  evaluateWithScorer,
  expectedCalibrationError,
  orderings,
  type Decision,
  type ScoreFn,
} from '../../../src/core/index.ts'
import { divideOut } from '../../../src/core/evaluate/priors.ts'
import { binOf } from '../../../src/core/metrics/headline.ts'
import { alwaysFirst, byId, decision } from '../../helpers/decisions.ts'

// Closed-form oracles: values computed by hand from the definitions in docs/statistics.md.
const quiet = { onWarning: () => {} }

describe('always-first scorer under cyclic, 3 options (O3)', () => {
  const rows = [decision(3, 0), decision(3, 1), decision(3, 2), decision(3, 1)]

  it('order consistency 0, letters A 100%, Brier 2/3, confidence 1/3', async () => {
    const result = await evaluateWithScorer(rows, alwaysFirst, { debias: 'cyclic', ...quiet })
    expect(result.orderConsistency).toBe(0)
    expect(result.letterDistribution).toEqual({ A: 1, B: 0, C: 0 })
    expect(result.brier).toBeCloseTo(2 / 3, 12)
    for (const record of result.records) {
      for (const p of Object.values(record.probabilities)) expect(p).toBeCloseTo(1 / 3, 12)
      // The averaged vector ties exactly: a tie is no answer (docs/design.md#ties).
      expect(record.prediction).toBeNull()
      expect(record.tied).toEqual(['o0', 'o1', 'o2'])
    }
    // Nothing answered, nothing credited; ECE = |0 − 1/3|.
    expect(result.accuracy).toBe(0)
    expect(result.ece).toBeCloseTo(1 / 3, 12)
    expect(result.manifest.orderingsScored).toBe(3)
    expect(result.manifest.forwardPasses).toBe(12)
  })

  it('without debiasing it is not measurable: order consistency is null', async () => {
    const result = await evaluateWithScorer(rows, alwaysFirst, { debias: 'none', ...quiet })
    expect(result.orderConsistency).toBeNull()
    expect(result.manifest.orderingsScored).toBe(1)
  })
})

describe('Brier (O8)', () => {
  it.each([2, 3, 4, 7])('uniform over %i options scores 1 − 1/k', (k) => {
    expect(brierScore([Array<number>(k).fill(1 / k)], [0])).toBeCloseTo(1 - 1 / k, 12)
  })
  it('[0.8, 0.1, 0.1] scores 0.06 with gold first and 1.46 with gold second', () => {
    expect(brierScore([[0.8, 0.1, 0.1]], [0])).toBeCloseTo(0.06, 12)
    expect(brierScore([[0.8, 0.1, 0.1]], [1])).toBeCloseTo(1.46, 12)
  })
  it('certain and wrong scores 2, certain and right 0', () => {
    expect(brierScore([[1, 0]], [1])).toBe(2)
    expect(brierScore([[0, 1]], [1])).toBe(0)
  })
})

describe('balanced accuracy (O16)', () => {
  it('any constant predictor scores 1/K over the classes present in gold', () => {
    const gold = ['a', 'a', 'a', 'a', 'a', 'b', 'c', 'c']
    for (const constant of ['a', 'b', 'c', 'z'])
      expect(balancedAccuracy(gold, gold.map(() => constant))).toBeCloseTo(constant === 'z' ? 0 : 1 / 3, 12)
  })
  it('a constant answer through the evaluator gives 1/K, not the majority share', async () => {
    const rows = [0, 0, 0, 0, 0, 0, 1, 2].map((gold) => decision(3, gold))
    const result = await evaluateWithScorer(rows, byId((id) => (id === 'o0' ? 0.9 : 0.05)), quiet)
    expect(result.accuracy).toBe(6 / 8)
    expect(result.balancedAccuracy).toBeCloseTo(1 / 3, 12)
  })
})

describe('debias arithmetic', () => {
  it('an additive slot bonus that sums to zero is cancelled exactly by cyclic (O2)', async () => {
    const q: Record<string, number> = { o0: 0.5, o1: 0.3, o2: 0.15, o3: 0.05 }
    const bonus = [0.04, -0.01, -0.02, -0.01]
    const slotBiased: ScoreFn = (requests) =>
      requests.map(({ criterion }) => criterion.options.map((o, slot) => q[o.id]! + bonus[slot]!))
    const result = await evaluateWithScorer([decision(4, 0)], slotBiased, { debias: 'cyclic', ...quiet })
    for (const [id, p] of Object.entries(result.records[0]!.probabilities)) expect(p).toBeCloseTo(q[id]!, 12)
  })

  it('calibrated: p = (0.6, 0.3, 0.1) with prior (0.5, 0.25, 0.25) gives (3/7, 3/7, 1/7) (O7)', () => {
    const out = divideOut([0.6, 0.3, 0.1], [0.5, 0.25, 0.25])
    expect(out[0]).toBeCloseTo(3 / 7, 12)
    expect(out[1]).toBeCloseTo(3 / 7, 12)
    expect(out[2]).toBeCloseTo(1 / 7, 12)
  })

  it('calibrated mode divides each ordering by its content-free prior, scored once per (criterion, ordering)', async () => {
    const prior = [0.5, 0.25, 0.25]
    const content: Record<string, number> = { o0: 0.6, o1: 0.3, o2: 0.1 }
    const seen: string[] = []
    // Observed = prior(slot) · content(id), renormalised: a multiplicative slot prior.
    const scorer: ScoreFn = (requests) =>
      requests.map(({ state, criterion }) => {
        seen.push(state)
        return criterion.options.map((o, slot) => (state === 'N/A' ? prior[slot]! : prior[slot]! * content[o.id]!))
      })
    const rows = [decision(3, 0), decision(3, 1)]
    const result = await evaluateWithScorer(rows, scorer, { debias: 'calibrated', ...quiet })
    expect(seen.filter((s) => s === 'N/A')).toHaveLength(3) // one per ordering, shared by both rows
    expect(result.manifest.forwardPasses).toBe(6 + 3)
    // Dividing out the prior recovers the content exactly under every ordering.
    expect(result.orderConsistency).toBe(1)
    for (const [id, p] of Object.entries(result.records[0]!.probabilities)) expect(p).toBeCloseTo(content[id]!, 12)
  })

  it('permutation on 7 options is refused with a ConfigError that suggests cyclic', async () => {
    expect(() => orderings(7, 'permutation')).toThrow(ConfigError)
    expect(() => orderings(7, 'permutation')).toThrow(/cyclic/)
    await expect(evaluateWithScorer([decision(7, 0)], alwaysFirst, { debias: 'permutation', ...quiet })).rejects.toThrow(
      ConfigError,
    )
    expect(orderings(6, 'permutation')).toHaveLength(720)
  })

  it('cyclic orderings are the rotations (i + k) % n; none is the identity', () => {
    expect(orderings(3, 'cyclic')).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ])
    expect(orderings(4, 'none')).toEqual([[0, 1, 2, 3]])
    expect(orderings(3, 'calibrated')).toEqual(orderings(3, 'cyclic'))
  })

  it('an unknown mode is a ConfigError listing the modes', () => {
    expect(() => orderings(3, 'rotate' as never)).toThrow(/none, cyclic, permutation, calibrated/)
  })
})

describe('ECE (O9)', () => {
  it('bins are right-closed: 0.8 lands in (0.7, 0.8], 0 in the first bin, 1 in the last', () => {
    expect(binOf(0.8)).toBe(7)
    expect(binOf(0.8000001)).toBe(8)
    expect(binOf(0.3)).toBe(2)
    expect(binOf(0)).toBe(0)
    expect(binOf(1)).toBe(9)
  })
  it('[[0.9, 0.1], [0.8, 0.2]] with both right gives 0.15 (Kumar util_test)', () => {
    expect(expectedCalibrationError([0.9, 0.8], [true, true])).toBeCloseTo(0.15, 12)
  })
  it('the 6-row, 3-bin case gives 0.075 (Kumar util_test)', () => {
    const probs = [
      [0.8, 0.1, 0.1],
      [0.6, 0.2, 0.2],
      [0, 0.9, 0.1],
      [0, 1, 0],
      [0.3, 0.3, 0.4],
      [0.2, 0, 0.85],
    ]
    const labels = [0, 0, 1, 1, 0, 2]
    const confidences = probs.map((p) => Math.max(...p))
    const hits = probs.map((p, i) => p.indexOf(Math.max(...p)) === labels[i])
    expect(expectedCalibrationError(confidences, hits, 3)).toBeCloseTo(0.075, 12)
  })
})

describe('chance', () => {
  it('is the mean of 1/options over labelled rows', async () => {
    expect(chanceAccuracy([2, 4])).toBe(0.375)
    const rows: Decision[] = [decision(2, 0), decision(4, 1), decision(3, null)]
    const result = await evaluateWithScorer(rows, alwaysFirst, quiet)
    expect(result.manifest.chance).toBe(0.375)
    expect(result.manifest.unlabelledSkipped).toBe(1)
    expect(result.n).toBe(2)
  })
})
