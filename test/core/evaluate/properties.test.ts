import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  evaluateWithScorer,
  fingerprint,
  type Decision,
  type EvalResult,
  type ScoreFn,
} from '../../../src/core/index.ts'
import { mulberry32 } from '../../../src/core/math/random.ts'

// Invariants that must hold for any data and any scorer of the right shape.
const quiet = { onWarning: () => {} }

/** Arbitrary labelled decision with 2–5 options and a gold answer among them (sets use uniqueArray: ids are unique per set). */
const decisionArb: fc.Arbitrary<Decision> = fc
  .record({
    k: fc.integer({ min: 2, max: 5 }),
    answer: fc.nat(),
    state: fc.string({ maxLength: 20 }),
    key: fc.constantFrom('queue', 'refund', 'tone'),
    id: fc.string({ minLength: 1, maxLength: 6 }),
  })
  .map(({ k, answer, state, key, id }) => ({
    id,
    state,
    criterion: { key, question: 'Q?', options: Array.from({ length: k }, (_, i) => ({ id: `${key}-${i}`, text: `T${i}` })) },
    answer_id: `${key}-${answer % k}`,
  }))

/** A scorer that ignores slots: a seeded weight per (state, option id), plus an optional slot prior. */
function contentScorer(seed: number, slotPrior?: number[]): ScoreFn {
  return (requests) =>
    requests.map(({ state, criterion }) =>
      criterion.options.map((o, slot) => {
        const r = mulberry32(hash(`${seed}|${state}|${o.id}`))()
        return (0.05 + r) * (slotPrior ? slotPrior[slot % slotPrior.length]! : 1)
      }),
    )
}

function hash(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** Every metric of a result, for comparing two runs. */
function metrics(result: EvalResult) {
  const { accuracy, balancedAccuracy, orderConsistency, ece, brier, perCriterion } = result
  return { accuracy, balancedAccuracy, orderConsistency, ece, brier, perCriterion }
}

/** Same decisions with each criterion's options shuffled (seeded). */
function shuffleOptions(rows: Decision[], seed: number): Decision[] {
  const random = mulberry32(seed)
  return rows.map((row) => {
    const options = [...row.criterion.options]
    for (let i = options.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[options[i], options[j]] = [options[j]!, options[i]!]
    }
    return { ...row, criterion: { ...row.criterion, options } }
  })
}

describe('properties', () => {
  it('final probabilities renormalise to 1 under every mode', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(decisionArb, { minLength: 1, maxLength: 8, selector: (d) => d.id }),
        fc.constantFrom('none', 'cyclic', 'permutation', 'calibrated' as const),
        fc.integer(),
        async (rows, debias, seed) => {
          const result = await evaluateWithScorer(rows, contentScorer(seed, [3, 1, 2]), { debias, ...quiet })
          for (const record of result.records) {
            const sum = Object.values(record.probabilities).reduce((a, b) => a + b, 0)
            expect(sum).toBeCloseTo(1, 12)
          }
          const letters = Object.values(result.letterDistribution).reduce((a, b) => a + b, 0)
          expect(letters).toBeCloseTo(1, 12)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('under permutation, reordering a decision\'s input options changes no metric', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(decisionArb, { minLength: 1, maxLength: 6, selector: (d) => d.id }), fc.integer(), fc.integer(), async (rows, seed, shuffle) => {
        // Even a scorer with a strong multiplicative slot prior: permutation visits every arrangement.
        const scorer = contentScorer(seed, [5, 1, 2, 0.5, 3])
        const a = await evaluateWithScorer(rows, scorer, { debias: 'permutation', ...quiet })
        const b = await evaluateWithScorer(shuffleOptions(rows, shuffle), scorer, { debias: 'permutation', ...quiet })
        const ma = metrics(a)
        const mb = metrics(b)
        expect(mb.accuracy).toBe(ma.accuracy)
        expect(mb.balancedAccuracy).toBe(ma.balancedAccuracy)
        expect(mb.orderConsistency).toBe(ma.orderConsistency)
        expect(mb.brier).toBeCloseTo(ma.brier!, 10)
        expect(mb.ece).toBeCloseTo(ma.ece!, 10)
        expect(mb.perCriterion).toEqual(ma.perCriterion)
      }),
      { numRuns: 40 },
    )
  })

  it('order consistency is 1 for a scorer that ignores position', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(decisionArb, { minLength: 1, maxLength: 8, selector: (d) => d.id }),
        fc.constantFrom('cyclic', 'permutation', 'calibrated' as const),
        fc.integer(),
        async (rows, debias, seed) => {
          const result = await evaluateWithScorer(rows, contentScorer(seed), { debias, ...quiet })
          expect(result.orderConsistency).toBe(1)
        },
      ),
      { numRuns: 40 },
    )
  })

  it('the fingerprint changes when any scored field changes, and not otherwise', () => {
    const fieldEdits: ((d: Decision) => Decision)[] = [
      (d) => ({ ...d, state: d.state + '!' }),
      (d) => ({ ...d, id: (d.id ?? '') + 'x' }),
      (d) => ({ ...d, answer_id: d.criterion.options.find((o) => o.id !== d.answer_id)!.id }),
      (d) => ({ ...d, group_id: 'g-new' }),
      (d) => ({ ...d, criterion: { ...d.criterion, key: d.criterion.key + '2' } }),
      (d) => ({ ...d, criterion: { ...d.criterion, question: 'Other?' } }),
      (d) => ({ ...d, criterion: { ...d.criterion, options: d.criterion.options.map((o, i) => (i === 0 ? { ...o, text: o.text + '.' } : o)) } }),
      (d) => ({ ...d, criterion: { ...d.criterion, options: [...d.criterion.options].reverse() } }),
    ]
    fc.assert(
      fc.property(
        fc.uniqueArray(decisionArb, { minLength: 1, maxLength: 5, selector: (d) => d.id }),
        fc.nat(),
        fc.integer({ min: 0, max: fieldEdits.length - 1 }),
        (rows, at, edit) => {
          const index = at % rows.length
          const before = fingerprint(rows)
          // Not a change: same content with keys in another order, or re-parsed from JSON.
          const reordered = rows.map((d) => JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(d).reverse()))) as Decision)
          expect(fingerprint(reordered)).toBe(before)
          // A change to any scored field.
          const changed = rows.map((d, i) => (i === index ? fieldEdits[edit]!(d) : d))
          expect(fingerprint(changed)).not.toBe(before)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('aggregation is per option id: every ordering contributes equally', async () => {
    await fc.assert(
      fc.asyncProperty(decisionArb, fc.integer(), async (row, seed) => {
        const scorer = contentScorer(seed)
        const [direct] = (await scorer([{ state: row.state, criterion: row.criterion, prompt: '' }])) as number[][]
        const sum = direct!.reduce((a, b) => a + b, 0)
        const result = await evaluateWithScorer([row], scorer, { debias: 'cyclic', ...quiet })
        row.criterion.options.forEach((o, i) => expect(result.records[0]!.probabilities[o.id]).toBeCloseTo(direct![i]! / sum, 12))
      }),
      { numRuns: 50 },
    )
  })
})
