/**
 * Systematic, not case by case: over random decision sets and scorers that mix exact ties, near
 * ties (float noise), one-hot, floored and content-blind vectors, for every debias and average
 * mode, no metric credits an answer the scorer did not give.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AVERAGE_MODES,
  DEBIAS_MODES,
  evaluateWithScorer,
  type AverageMode,
  type DebiasMode,
  type Decision,
  type EvalResult,
  type FallibleScoreFn,
  type ScoreFn,
} from '../../../src/core/index.ts'

/** A small deterministic hash of a string, for content-dependent vectors. */
function hash(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

const FAMILIES = ['flat', 'near', 'slot-onehot', 'id-onehot', 'floored', 'small-ints', 'prior-times-content'] as const
type Family = (typeof FAMILIES)[number]

/** One vector for one request, by the decision's family: some read content, some only slots. */
function vector(family: Family, ids: readonly string[], state: string, epoch: number): number[] {
  const k = ids.length
  const h = (id: string) => hash(`${state}|${id}|${epoch}`)
  switch (family) {
    case 'flat':
      return ids.map(() => 0.5)
    case 'near':
      // Float noise of a relative 1e-14 per option: still a tie.
      return ids.map((id) => 1 + ((h(id) % 7) - 3) * 1e-14)
    case 'slot-onehot':
      return ids.map((_, slot) => (slot === 0 ? 1 : 0))
    case 'id-onehot': {
      const best = ids.reduce((a, b) => (h(a) >= h(b) ? a : b))
      return ids.map((id) => (id === best ? 1 : 0))
    }
    case 'floored': {
      const best = ids.reduce((a, b) => (h(a) >= h(b) ? a : b))
      return ids.map((id, slot) => (id === best ? 1 : [0, 5e-324, 1e-300][slot % 3]!))
    }
    case 'small-ints':
      // Exact ties are frequent: values 0..2, never all zero.
      return ids.map((id, slot) => (h(id) % 3) + (slot === k - 1 && ids.every((o) => h(o) % 3 === 0) ? 1 : 0))
    case 'prior-times-content':
      return ids.map((id, slot) => (1 + slot) * (1 + (h(id) % 4)))
  }
}

const decisionsArb = fc.array(
  fc.record({ k: fc.integer({ min: 2, max: 4 }), gold: fc.nat(3), family: fc.constantFrom(...FAMILIES), word: fc.string({ maxLength: 3 }) }),
  { minLength: 1, maxLength: 12 },
)

function toDecisions(specs: { k: number; gold: number; family: Family; word: string }[]): Decision[] {
  return specs.map((s, i) => ({
    id: `d${i}`,
    state: `${s.family} ${i} ${s.word}`,
    criterion: { key: `c${s.k}`, options: Array.from({ length: s.k }, (_, j) => ({ id: `o${j}`, text: `T${j}` })) },
    answer_id: `o${s.gold % s.k}`,
  }))
}

/** The family a request belongs to; content-free requests (calibrated) read as their criterion would. */
function familyOf(state: string): Family {
  const word = state.split(' ')[0]!
  return (FAMILIES as readonly string[]).includes(word) ? (word as Family) : 'prior-times-content'
}

/** A scorer over the families that logs how many (non content-free) requests came back tied. */
function mixedScorer(): ScoreFn & { tiedRequests: number } {
  const fn = Object.assign(
    (requests: Parameters<ScoreFn>[0]) =>
      requests.map((r) => {
        const v = vector(familyOf(r.state), r.criterion.options.map((o) => o.id), r.state, r.epoch ?? 0)
        if (r.state !== 'N/A' && looselyTied(v).length > 1) fn.tiedRequests++
        return v
      }),
    { tiedRequests: 0 },
  )
  return fn
}

/**
 * The maximal indices within the evaluator's relative 1e-12. Not looser: under `pride` and
 * `calibrated` a floored prior (1e-10) leaves real gaps of about 1e-10 between options, and
 * those are answers, not ties.
 */
function looselyTied(values: readonly number[]): number[] {
  const max = Math.max(...values)
  return values.flatMap((v, i) => (v >= max - Math.abs(max) * 1e-12 ? [i] : []))
}

/**
 * The adversarial tie-breaker: it breaks every tie against gold, so it is credited only where
 * gold is the one maximum. No metric may credit more than it.
 */
function adversarialAccuracy(result: EvalResult): number {
  let hits = 0
  for (const record of result.records) {
    const ids = Object.keys(record.probabilities)
    const top = looselyTied(ids.map((id) => record.probabilities[id]!))
    if (top.length === 1 && ids[top[0]!] === record.gold) hits++
  }
  return hits / result.records.length
}

const modes = fc.record({ debias: fc.constantFrom<DebiasMode>(...DEBIAS_MODES), average: fc.constantFrom<AverageMode>(...AVERAGE_MODES), epochs: fc.constantFrom(1, 2) })

describe('no metric credits an answer the scorer did not give', () => {
  it('accuracy, balanced accuracy and per-criterion never exceed the adversarial tie-breaker; every tie is recorded', async () => {
    await fc.assert(
      fc.asyncProperty(decisionsArb, modes, async (specs, { debias, average, epochs }) => {
        const decisions = toDecisions(specs)
        const scorer = mixedScorer()
        const result = await evaluateWithScorer(decisions, scorer, { debias, average, epochs, statistics: false, prideFraction: 0.5, onWarning: () => {} })
        const adversary = adversarialAccuracy(result)
        expect(result.accuracy).toBeLessThanOrEqual(adversary + 1e-12)
        // Nothing breaks ties here (no stated picks), so the two agree exactly.
        expect(result.accuracy).toBeCloseTo(adversary, 12)
        for (const record of result.records) {
          const ids = Object.keys(record.probabilities)
          const top = looselyTied(ids.map((id) => record.probabilities[id]!))
          if (top.length > 1) {
            expect(record.prediction).toBeNull()
            expect(record.tied).toEqual(top.map((i) => ids[i]))
          } else {
            expect(record.prediction).toBe(ids[top[0]!])
            expect(record.tied).toBeUndefined()
          }
          // A tied ordering is never part of an order-consistent decision.
          if (record.picks.includes(null)) expect(record.letters.includes(null)).toBe(true)
        }
        expect(result.manifest.tied!.decisions).toBe(result.records.filter((r) => r.prediction === null).length)
        // Per-criterion balanced accuracy credits no more than the adversary within each criterion.
        for (const [key, value] of Object.entries(result.perCriterion)) {
          const rows = result.records.filter((r) => r.criterion === key)
          const gold = new Set(rows.map((r) => r.gold))
          const credited = [...gold].map((g) => {
            const ofGold = rows.filter((r) => r.gold === g)
            return ofGold.filter((r) => r.prediction === g).length / ofGold.length
          })
          expect(value).toBeCloseTo(credited.reduce((a, b) => a + b, 0) / credited.length, 12)
        }
        expect(result.balancedAccuracy).toBeLessThanOrEqual(1)
        // Order consistency counts only decisions whose every pick is one option id.
        const multi = result.records.filter((r) => r.picks.length > 1)
        if (multi.length > 0 && debias !== 'pride')
          expect(result.orderConsistency).toBeCloseTo(multi.filter((r) => r.picks.every((p) => p !== null && p === r.picks[0])).length / multi.length, 12)
        // Circular accuracy: right under every ordering, a tied ordering never right.
        if (result.circularAccuracy !== null) {
          const strict = multi.filter((r) => r.picks.every((p) => p === r.gold)).length
          expect(result.circularAccuracy).toBeCloseTo(strict / multi.length, 12)
        }
        // The letters still account for every pick, ties split.
        const shares = Object.values(result.letterDistribution)
        expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9)
        // Without priors or epochs each tied request is one tied pick, counted independently here.
        if (epochs === 1 && debias !== 'calibrated' && debias !== 'pride') expect(result.manifest.tied!.picks).toBe(scorer.tiedRequests)
      }),
      {
        numRuns: 120,
        // A 1e-10 gap left by pride's floored prior: an answer (o1), not a tie.
        examples: [
          [
            [
              { k: 3, gold: 0, family: 'small-ints', word: ' ' },
              { k: 3, gold: 0, family: 'slot-onehot', word: '' },
            ],
            { debias: 'pride', average: 'probability', epochs: 2 },
          ],
        ],
      },
    )
  })

  it('a content-blind scorer (its vector depends on the slot only) is credited nothing under every debias mode but none', async () => {
    const slotVector = fc.oneof(
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 4, maxLength: 4 }),
      fc.nat(3).map((s) => [0, 1, 2, 3].map((i) => (i === s ? 1 : 1e-3))),
      fc.constant([0.8, 0.2 / 3, 0.2 / 3, 0.2 / 3]),
      fc.constant([1, 1, 1, 1]),
    )
    await fc.assert(
      fc.asyncProperty(decisionsArb, slotVector, modes, async (specs, v, { debias, average, epochs }) => {
        fc.pre(debias !== 'none')
        const blind: ScoreFn = (requests) => requests.map((r) => v.slice(0, r.criterion.options.length))
        // Gold listed first everywhere: first-maximum-wins credited this 100%.
        const decisions = toDecisions(specs.map((s) => ({ ...s, gold: 0 })))
        const result = await evaluateWithScorer(decisions, blind, { debias, average, epochs, statistics: false, prideFraction: 1, onWarning: () => {} })
        expect(result.accuracy).toBe(0)
        expect(result.balancedAccuracy).toBe(0)
        for (const value of Object.values(result.perCriterion)) expect(value).toBe(0)
        expect(result.circularAccuracy ?? 0).toBeLessThanOrEqual(0)
        expect(result.manifest.tied!.decisions).toBe(decisions.length)
      }),
      { numRuns: 80 },
    )
  })

  it('a stated pick breaks a tie of the totals only with a unique plurality among the tied options', async () => {
    await fc.assert(
      fc.asyncProperty(decisionsArb, fc.constantFrom<DebiasMode>('none', 'cyclic', 'permutation'), fc.constantFrom(1, 3), async (specs, debias, epochs) => {
        const decisions = toDecisions(specs)
        const votes = new Map<string, Map<string, number>>()
        // Flat vectors, a stated slot from the content hash: the picks are the only answer there is.
        const stating: FallibleScoreFn = (requests) =>
          requests.map((r) => {
            const k = r.criterion.options.length
            const slot = hash(`${r.state}|${r.criterion.options.map((o) => o.id).join()}|${r.epoch ?? 0}`) % k
            const counts = votes.get(r.state) ?? votes.set(r.state, new Map()).get(r.state)!
            const id = r.criterion.options[slot]!.id
            counts.set(id, (counts.get(id) ?? 0) + 1)
            return { probabilities: Array(k).fill(1), pick: slot }
          })
        const result = await evaluateWithScorer(decisions, stating, { debias, epochs, statistics: false })
        result.records.forEach((record, i) => {
          const counts = votes.get(decisions[i]!.state)!
          const most = Math.max(...counts.values())
          const leaders = [...counts].filter(([, c]) => c === most).map(([id]) => id)
          expect(record.prediction).toBe(leaders.length === 1 ? leaders[0] : null)
        })
        expect(result.accuracy).toBeCloseTo(result.records.filter((r) => r.prediction === r.gold).length / result.records.length, 12)
      }),
      { numRuns: 60 },
    )
  })
})
