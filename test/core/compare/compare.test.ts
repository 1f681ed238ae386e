import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareResults, recordsFingerprint } from '../../../src/core/compare/compare.ts'
import { renderComparison } from '../../../src/report/terminal-comparison.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { DataError } from '../../../src/core/support/errors.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import type { DecisionRecord } from '../../../src/core/result/result.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'

const OPTIONS = ['x', 'y', 'z']

/** A record with a given gold and prediction; `picks` default to one consistent pick per each of 3 orderings. */
function record(id: string, gold: string, prediction: string, picks: string[] = [prediction, prediction, prediction]): DecisionRecord {
  return {
    id,
    criterion: 'c',
    gold,
    prediction,
    probabilities: Object.fromEntries(OPTIONS.map((o) => [o, o === prediction ? 0.6 : 0.2])),
    picks,
    letters: picks.map(() => 'A'),
  }
}

/** Build two record sets with a given paired table (both right, only A, only B, neither). */
function paired(bothRight: number, onlyA: number, onlyB: number, neither: number) {
  const a: DecisionRecord[] = []
  const b: DecisionRecord[] = []
  let i = 0
  const push = (aRight: boolean, bRight: boolean, count: number) => {
    for (let k = 0; k < count; k++, i++) {
      const gold = OPTIONS[i % 3]!
      const wrong = OPTIONS[(i + 1) % 3]!
      a.push(record(`d${i}`, gold, aRight ? gold : wrong))
      b.push(record(`d${i}`, gold, bRight ? gold : wrong))
    }
  }
  push(true, true, bothRight)
  push(true, false, onlyA)
  push(false, true, onlyB)
  push(false, false, neither)
  return { a: { records: a, manifest: { fingerprint: 'f' } }, b: { records: b, manifest: { fingerprint: 'f' } } }
}

describe('compareResults', () => {
  it('builds the paired table and the exact McNemar p (3 vs 8 → 0.2266; 1 vs 9 → 0.021484375, mid-p 0.011719)', () => {
    const { a, b } = paired(10, 3, 8, 3)
    const c = compareResults(a, b)
    expect(c.table).toEqual({ bothRight: 10, onlyA: 3, onlyB: 8, neither: 3 })
    expect(c.n).toBe(24)
    expect(c.mcnemar.pTwoSided).toBeCloseTo(0.2266, 4)
    expect(c.accuracy.difference).toBeCloseTo(5 / 24, 12)
    const d = compareResults(...Object.values(paired(5, 1, 9, 5)) as [never, never])
    expect(d.mcnemar.pTwoSided).toBe(0.021484375)
    expect(d.mcnemar.pMid).toBeCloseTo(0.011719, 6)
    expect(d.mcnemar.pCGreater).toBeLessThan(0.05)
  })

  it('pairs by id, not by position', () => {
    const { a, b } = paired(6, 2, 4, 0)
    const shuffled = { ...b, records: [...b.records].reverse() }
    expect(compareResults(a, shuffled).table).toEqual(compareResults(a, b).table)
  })

  it('property: compare(A, A) shows no difference, p = 1, a zero-width interval at 0', () => {
    const arbitraryRecords = fc
      .array(fc.tuple(fc.constantFrom(...OPTIONS), fc.constantFrom(...OPTIONS), fc.boolean()), { minLength: 1, maxLength: 40 })
      .map((rows) =>
        rows.map(([gold, prediction, consistent], i) =>
          record(`r${i}`, gold, prediction, consistent ? [prediction, prediction, prediction] : [prediction, gold, 'x']),
        ),
      )
    fc.assert(
      fc.property(arbitraryRecords, fc.nat(), (records, seed) => {
        const result = { records, manifest: { fingerprint: 'same' } }
        const c = compareResults(result, result, { seed, resamples: 100 })
        expect(c.table.onlyA + c.table.onlyB).toBe(0)
        expect(c.mcnemar.pTwoSided).toBe(1)
        expect(c.mcnemar.pMid).toBe(1)
        expect(c.balancedAccuracy.difference).toBe(0)
        expect([c.balancedAccuracy.interval.lower, c.balancedAccuracy.interval.upper]).toEqual([0, 0])
        expect(c.orderConsistency!.difference).toBe(0)
        expect(c.orderConsistency!.mcnemar.pTwoSided).toBe(1)
      }),
      { numRuns: 60 },
    )
  })

  it('the paired bootstrap is deterministic per seed and contains the observed difference here', () => {
    const { a, b } = paired(30, 4, 12, 10)
    const one = compareResults(a, b, { seed: 4 })
    expect(compareResults(a, b, { seed: 4 })).toEqual(one)
    expect(one.balancedAccuracy.interval.lower).toBeLessThanOrEqual(one.balancedAccuracy.difference)
    expect(one.balancedAccuracy.interval.upper).toBeGreaterThanOrEqual(one.balancedAccuracy.difference)
    expect(one.balancedAccuracy.interval.lower).toBeGreaterThan(-1)
  })

  it('order consistency change with its exact test', () => {
    const a = { records: Array.from({ length: 8 }, (_, i) => record(`d${i}`, 'x', 'x', i < 2 ? ['x', 'x', 'x'] : ['x', 'y', 'x'])) }
    const b = { records: Array.from({ length: 8 }, (_, i) => record(`d${i}`, 'x', 'x')) }
    const c = compareResults(a, b)
    expect(c.orderConsistency).toMatchObject({ decisions: 8, a: 0.25, b: 1, table: { bothRight: 2, onlyA: 0, onlyB: 6, neither: 0 } })
    expect(c.orderConsistency!.mcnemar.pTwoSided).toBe(0.03125)
  })

  it('order consistency is n/a when one side scored a single ordering', () => {
    const a = { records: [record('d0', 'x', 'x', ['x'])] }
    const b = { records: [record('d0', 'x', 'x')] }
    expect(compareResults(a, b).orderConsistency).toBeNull()
    expect(renderComparison(compareResults(a, b), { color: false })).toMatch(/order consistency\s+n\/a/)
  })

  it('refuses different fingerprints, saying so', () => {
    const { a, b } = paired(3, 1, 1, 1)
    expect(() => compareResults(a, { ...b, manifest: { fingerprint: 'other' } })).toThrow(DataError)
    expect(() => compareResults(a, { ...b, manifest: { fingerprint: 'other' } })).toThrow(/fingerprints differ \(A: f, B: other\)/)
  })

  it('refuses record sets that differ, repeat ids, or disagree on gold (a records file has no fingerprint)', () => {
    const { a, b } = paired(3, 1, 1, 1)
    const bare = (records: DecisionRecord[]) => ({ records })
    expect(() => compareResults(bare(a.records), bare(b.records.slice(1)))).toThrow(/record sets differ: 1 only in A \(e\.g\. "d0"\)/)
    expect(() => compareResults(bare([...a.records, a.records[0]!]), bare(b.records))).toThrow(/two records with id "d0"/)
    const relabelled = b.records.map((r, i) => (i === 2 ? { ...r, gold: 'z' === r.gold ? 'x' : 'z' } : r))
    expect(() => compareResults(bare(a.records), bare(relabelled))).toThrow(/decision "d2" differs/)
    expect(recordsFingerprint(a.records)).toBe(recordsFingerprint(b.records))
    expect(recordsFingerprint(a.records)).not.toBe(recordsFingerprint(relabelled))
  })

  it('renders the paired table, p-values, the interval and a verdict', () => {
    const { a, b } = paired(10, 3, 8, 3)
    const text = renderComparison(compareResults(a, b, { labels: ['base', 'tuned'] }), { color: false })
    expect(text).toContain('base  vs  tuned')
    expect(text).toMatch(/base right\s+10\s+3/)
    expect(text).toMatch(/base wrong\s+8\s+3/)
    expect(text).toMatch(/p = 0\.227 two-sided\s+mid-p = 0\.1[0-9]+/)
    expect(text).toMatch(/balanced accuracy\s+base [\d.]+%\s+tuned [\d.]+%\s+Δ \+[\d.]+ pp\s+\[[−+]?[\d.]+, \+[\d.]+\] pp/)
    expect(text).toMatch(/^verdict {12}no significant change from base to tuned \(accuracy \+[\d.]+ pp, p = 0\.227\); at 24 decisions only changes of about [\d.]+ pp or more are reliably detectable$/m)
    expect(text).not.toMatch(/\x1b\[/)
  })
})

describe('compareResults on two real evaluations', () => {
  const decisions: Decision[] = Array.from({ length: 30 }, (_, i) => ({
    id: `t${i}`,
    state: `evidence ${i} points at ${OPTIONS[i % 3]}`,
    criterion: { key: 'k', options: OPTIONS.map((id) => ({ id, text: id.toUpperCase() })) },
    answer_id: OPTIONS[i % 3]!,
  }))
  // Reads the evidence: the option named in the state gets most of the mass.
  const reader: ScoreFn = (requests) =>
    requests.map(({ state, criterion }) => criterion.options.map((o) => (state.endsWith(o.id) ? 0.7 : 0.15)))
  // Always slot A.
  const firstSlot: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((_, i) => (i === 0 ? 0.8 : 0.1)))

  it('a reader beats an always-A scorer: McNemar significant, order consistency 0 → 1', async () => {
    const base = await evaluateWithScorer(decisions, firstSlot, { debias: 'cyclic' })
    const tuned = await evaluateWithScorer(decisions, reader, { debias: 'cyclic' })
    const c = compareResults(base, tuned, { labels: ['first-slot', 'reader'] })
    expect(c.fingerprint.a).toBe(c.fingerprint.b)
    expect(c.table.onlyA).toBe(0)
    expect(c.table.onlyB).toBe(30) // the always-A scorer ties every decision, and a tie is no answer: right on none
    expect(c.table.bothRight).toBe(0)
    expect(c.mcnemar.pTwoSided).toBeLessThan(1e-5)
    expect(c.orderConsistency).toMatchObject({ a: 0, b: 1, decisions: 30 })
    expect(c.balancedAccuracy.interval.lower).toBeGreaterThan(0)
    expect(renderComparison(c, { color: false })).toMatch(/^verdict {12}reader is better than first-slot: accuracy \+100\.0 pp \(exact McNemar p < 0\.0001\)/)
  })

  it('refuses two evaluations of different data', async () => {
    const one = await evaluateWithScorer(decisions, reader)
    const two = await evaluateWithScorer(decisions.slice(1), reader)
    expect(() => compareResults(one, two)).toThrow(/fingerprints differ/)
  })
})
