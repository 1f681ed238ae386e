/**
 * A tie is no answer: a tied final maximum is never credited, a tied per-ordering pick splits
 * its letter and is never order-consistent, and the data file's order never decides.
 */
import { describe, expect, it } from 'vitest'
import alwaysFirstModule from '../../../examples/scorers/always-first.mjs'
import {
  evaluateWithScorer,
  type AverageMode,
  type DebiasMode,
  type Decision,
  type FallibleScoreFn,
  type ScoreFn,
} from '../../../src/core/index.ts'
import { DecisionRecordSchema } from '../../../src/core/result/record.ts'
import { finalPick } from '../../../src/core/evaluate/records.ts'
import { maximalSlots } from '../../../src/core/evaluate/argmax.ts'
import { pairwiseAudit, classifyPair } from '../../../src/core/metrics/pairwise.ts'
import { decision } from '../../helpers/decisions.ts'

const alwaysFirst = alwaysFirstModule as ScoreFn
/** Every option the same score, whatever the slot or content. */
const flat: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map(() => 1))

/** `n` decisions of `k` options whose gold is listed first, as generated sets often are. */
function goldFirst(n: number, k: number): Decision[] {
  return Array.from({ length: n }, (_, i) => decision(k, 0, { id: `g${i}`, state: `case ${i}` }))
}

describe('always-first on data whose gold is listed first (the reference credited it 100%)', () => {
  it.each<[DebiasMode, AverageMode]>([
    ['cyclic', 'probability'],
    ['permutation', 'probability'],
    ['calibrated', 'probability'],
    ['pride', 'probability'],
    ['cyclic', 'log'],
    ['permutation', 'log'],
  ])('under %s (average %s) scores 0, every decision tied', async (debias, average) => {
    const result = await evaluateWithScorer(goldFirst(40, 4), alwaysFirst, { debias, average, statistics: false, prideFraction: 1 })
    expect(result.accuracy).toBe(0)
    expect(result.balancedAccuracy).toBe(0)
    expect(result.perCriterion).toEqual({ c: 0 })
    expect(result.manifest.tied!.decisions).toBe(40)
    for (const record of result.records) {
      expect(record.prediction).toBeNull()
      expect(record.tied).toEqual(['o0', 'o1', 'o2', 'o3'])
      expect(DecisionRecordSchema.safeParse(record).success).toBe(true)
    }
  })

  it('a tied decision is no hit for circular accuracy either', async () => {
    const result = await evaluateWithScorer(goldFirst(10, 3), alwaysFirst, { debias: 'cyclic', statistics: false })
    expect(result.circularAccuracy).toBe(0)
    expect(result.orderConsistency).toBe(0)
  })
})

describe('a scorer that scores every option alike', () => {
  it('does not read as letters picked A:100%: each ordering splits its letter evenly', async () => {
    const result = await evaluateWithScorer(goldFirst(12, 3), flat, { debias: 'cyclic', statistics: false })
    for (const share of Object.values(result.letterDistribution)) expect(share).toBeCloseTo(1 / 3, 12)
    expect(result.manifest.tied).toEqual({ decisions: 12, picks: 36 })
    expect(result.orderConsistency).toBe(0)
    expect(result.accuracy).toBe(0)
    expect(result.records[0]!.picks).toEqual([null, null, null])
    expect(result.records[0]!.letters).toEqual([null, null, null])
  })

  it('under debias none too (one ordering, so order consistency is not measured)', async () => {
    const result = await evaluateWithScorer(goldFirst(6, 4), flat, { debias: 'none', statistics: false })
    expect(result.letterDistribution).toEqual({ A: 0.25, B: 0.25, C: 0.25, D: 0.25 })
    expect(result.accuracy).toBe(0)
    expect(result.orderConsistency).toBeNull()
  })
})

describe('the letter split and consistency, closed form', () => {
  it('a tie of two slots out of three counts 1/2 on each; a unique pick counts 1', async () => {
    // Ordering 0 (identity): [1, 1, 0] ties A and B. The other rotations of cyclic see a
    // vector that depends on content only, so they pick the option id o2 wherever it sits.
    const scorer: ScoreFn = (requests) =>
      requests.map(({ criterion }) => (criterion.options[0]!.id === 'o0' ? [1, 1, 0] : criterion.options.map((o) => (o.id === 'o2' ? 1 : 0))))
    const result = await evaluateWithScorer([decision(3, 2)], scorer, { debias: 'cyclic', statistics: false })
    // Rotation 1 shows o1,o2,o0 (o2 at B); rotation 2 shows o2,o0,o1 (o2 at A).
    expect(result.records[0]!.letters).toEqual([null, 'B', 'A'])
    expect(result.letterDistribution).toEqual({ A: 1.5 / 3, B: 1.5 / 3, C: 0 })
    // the tied ordering makes the decision order-inconsistent although the others agree
    expect(result.orderConsistency).toBe(0)
    expect(result.manifest.tied).toEqual({ decisions: 0, picks: 1 })
    // totals: o0 1/6, o1 1/6, o2 2/3: a unique final answer, credited
    expect(result.records[0]!.prediction).toBe('o2')
    expect(result.accuracy).toBe(1)
  })

  it('float noise from summation order does not break a tie; a real difference does', () => {
    expect(maximalSlots([0.1 + 0.2, 0.3])).toEqual([0, 1])
    expect(maximalSlots([1, 1 - 1e-13, 0.5])).toEqual([0, 1])
    expect(maximalSlots([1, 1 - 1e-9])).toEqual([0])
    expect(maximalSlots([-3, -3 * (1 + 1e-13)])).toEqual([0, 1])
  })

  it('the final tie goes to the stated picks only when they name one tied option most often', () => {
    expect(finalPick([2], undefined)).toBe(2)
    expect(finalPick([0, 1], undefined)).toBeUndefined()
    expect(finalPick([0, 1], [1, 2, 5])).toBe(1) // o2 is not tied: its votes do not count
    expect(finalPick([0, 1], [2, 2, 0])).toBeUndefined()
    expect(finalPick([0, 2], [0, 3, 0])).toBeUndefined() // no vote for any tied option
  })
})

describe('a stated pick breaks a tie of the totals, file order never does', () => {
  it('a flat vector whose stated pick is the last slot predicts the option stated most', async () => {
    // Always states the option id o1, wherever it sits: the model's own choice.
    const scorer: FallibleScoreFn = (requests) =>
      requests.map(({ criterion }) => ({ probabilities: criterion.options.map(() => 1), pick: criterion.options.findIndex((o) => o.id === 'o1') }))
    const result = await evaluateWithScorer([decision(3, 1)], scorer, { debias: 'cyclic', statistics: false })
    expect(result.records[0]!.prediction).toBe('o1')
    expect(result.records[0]!.tied).toBeUndefined()
    expect(result.accuracy).toBe(1)
    expect(result.orderConsistency).toBe(1)
  })

  it('stated picks split evenly among the tied options leave the decision tied', async () => {
    // Slot A stated under every rotation: each option id is stated once.
    const scorer: FallibleScoreFn = (requests) => requests.map(({ criterion }) => ({ probabilities: criterion.options.map(() => 1), pick: 0 }))
    const result = await evaluateWithScorer([decision(3, 0)], scorer, { debias: 'cyclic', statistics: false })
    expect(result.records[0]!.prediction).toBeNull()
    expect(result.accuracy).toBe(0)
  })
})

describe('pairwise primacy and recency never count a tie', () => {
  it('a pair with a tied pick is undecided: neither consistent, primacy nor recency', () => {
    expect(classifyPair('none', 'A')).toBe('undecided')
    expect(classifyPair('B', 'none')).toBe('undecided')
    const audit = pairwiseAudit([
      { movable: [0, 1], orderings: [[0, 1], [1, 0]], picked: [-1, -1] },
      { movable: [0, 1], orderings: [[0, 1], [1, 0]], picked: [0, -1] },
      { movable: [0, 1], orderings: [[0, 1], [1, 0]], picked: [0, 1] },
    ])!
    expect(audit).toMatchObject({ pairs: 3, primacy: 0, recency: 0, positionConsistency: 1 / 3, preferenceFairness: 0 })
    expect(audit.firstShownRate).toBe(2 / 3)
  })

  it('a flat judge of pairs is not read as position-consistent', async () => {
    const pairs = Array.from({ length: 5 }, (_, i) => decision(2, 0, { id: `p${i}` }))
    const result = await evaluateWithScorer(pairs, flat, { debias: 'cyclic', statistics: false })
    expect(result.pairwise).toMatchObject({ pairs: 5, positionConsistency: 0, primacy: 0, recency: 0, firstShownRate: null })
  })

  it('a tied epoch pick is never repetition-stable', () => {
    const audit = pairwiseAudit([{ movable: [0, 1], orderings: [[0, 1], [1, 0]], picked: [0, 1], epochPicks: [[-1, -1], [1, 1]] }])!
    expect(audit.repetitionStability).toBe(0.5)
  })
})

describe('a decision that fails after a tied ordering', () => {
  it('takes its split letters back: the histogram covers scored decisions only', async () => {
    // "bad": its identity ordering is a flat tie, its next ordering fails. "good" picks A uniquely
    // under every rotation (so its totals tie: the one tied decision).
    const scorer: FallibleScoreFn = (requests) =>
      requests.map((r) =>
        r.state === 'bad'
          ? r.criterion.options[0]!.id === 'o0'
            ? [1, 1, 1]
            : { failure: 'timeout', message: 'took too long' }
          : [3, 1, 1],
      )
    const result = await evaluateWithScorer([decision(3, 0, { state: 'bad' }), decision(3, 0, { state: 'good' })], scorer, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(1)
    expect(result.letterDistribution).toEqual({ A: 1, B: 0, C: 0 })
    expect(result.manifest.tied).toEqual({ decisions: 1, picks: 0 })
  })
})

describe('several epochs', () => {
  it('a tied epoch is a wrong epoch', async () => {
    // Epoch 0 flat (first-maximum-wins credited it: gold is listed first), epoch 1 answers gold: one of two right.
    const scorer: ScoreFn = (requests) => requests.map((r) => (r.epoch === 0 ? [1, 1] : r.criterion.options.map((o) => (o.id === 'o0' ? 3 : 1))))
    const result = await evaluateWithScorer([decision(2, 0)], scorer, { debias: 'cyclic', epochs: 2, statistics: false })
    expect(result.records[0]!.epochValues).toEqual([0, 1])
  })
})
