import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decisionJsonSchema, type Decision } from '../../../src/core/decisions/schema.ts'
import { fingerprint } from '../../../src/core/decisions/fingerprint.ts'
import { parseDecisions } from '../../../src/core/decisions/load.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { orderings } from '../../../src/core/requests/orderings.ts'
import { classifyPair, pairwiseAudit, type PairPosition } from '../../../src/core/metrics/pairwise.ts'
import type { ScoreFn, ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { byId } from '../../helpers/decisions.ts'

const quiet = { onWarning: () => {}, statistics: false as const }

/** A two-candidate judgement with a pinned "Tie" at `tieAt` (0, 1 or 2). */
function pair(i: number, gold: 'x' | 'y' | 'tie', tieAt = 2): Decision {
  const candidates = [
    { id: 'x', text: `Answer X${i}` },
    { id: 'y', text: `Answer Y${i}` },
  ]
  const options = [...candidates]
  options.splice(tieAt, 0, { id: 'tie', text: 'Tie', pinned: true } as never)
  return { id: `p${i}`, state: `Question ${i}`, criterion: { key: 'judge', question: 'Which answer is better?', options }, answer_id: gold }
}

/** Puts `p` on the given slot (by letter index) and spreads the rest. */
const onSlot = (slot: (request: ScoreRequest) => number): ScoreFn => (requests) =>
  requests.map((request) => request.criterion.options.map((_, i) => (i === slot(request) ? 0.8 : 0.2 / (request.criterion.options.length - 1))))

describe('pinned options', () => {
  it('cyclic rotates only the unpinned options over the unpinned slots (u_{(i+k) mod m} at s_i)', () => {
    expect(orderings(4, 'cyclic', [3])).toEqual([
      [0, 1, 2, 3],
      [1, 2, 0, 3],
      [2, 0, 1, 3],
    ])
    // Pinned in the middle: unpinned slots 0, 2, 3 carry options 0, 2, 3.
    expect(orderings(4, 'cyclic', [1])).toEqual([
      [0, 1, 2, 3],
      [2, 1, 3, 0],
      [3, 1, 0, 2],
    ])
    expect(orderings(3, 'permutation', [0])).toEqual([
      [0, 1, 2],
      [0, 2, 1],
    ])
    expect(orderings(3, 'calibrated', [2])).toEqual(orderings(3, 'cyclic', [2]))
    expect(orderings(4, 'none', [1])).toEqual([[0, 1, 2, 3]])
    // Permutation's limit counts the options that move.
    expect(orderings(8, 'permutation', [0, 7])).toHaveLength(720)
  })

  it('property: pinned slots keep their option; every unpinned option visits every unpinned slot equally often', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 7 }), fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), fc.constantFrom('cyclic' as const, 'permutation' as const), (m, flags, mode) => {
        // m unpinned options among up to 7 slots, pinned ones where the flags say.
        const n = Math.min(20, m + flags.filter(Boolean).length)
        const pinned = flags
          .map((f, i) => (f ? i : -1))
          .filter((i) => i >= 0 && i < n)
          .slice(0, n - m)
        const movable = Array.from({ length: n }, (_, i) => i).filter((i) => !pinned.includes(i))
        if (mode === 'permutation' && movable.length > 5) return
        const set = orderings(n, mode, pinned)
        for (const ordering of set) for (const slot of pinned) expect(ordering[slot]).toBe(slot)
        for (const slot of movable)
          for (const option of movable) expect(set.filter((o) => o[slot] === option).length).toBe(set.length / movable.length)
      }),
      { numRuns: 60 },
    )
  })

  it('prompts and letters follow: the pinned "Tie" keeps its letter in every request, at any position', async () => {
    for (const tieAt of [0, 1, 2]) {
      const seen: string[] = []
      const spy: ScoreFn = (requests) => {
        for (const r of requests) seen.push(r.prompt)
        return requests.map((r) => r.criterion.options.map(() => 1))
      }
      await evaluateWithScorer([pair(0, 'x', tieAt)], spy, { debias: 'cyclic', ...quiet })
      expect(seen).toHaveLength(2)
      const letter = 'ABC'[tieAt]
      for (const prompt of seen) expect(prompt).toContain(`${letter}. Tie\n`)
      expect(new Set(seen.map((p) => p.match(/A\. (.*)\n/)![1])).size).toBe(tieAt === 0 ? 1 : 2)
    }
  })

  it('schema: `pinned` must be a boolean, at least two options must move, and the JSON Schema says so', () => {
    const line = (options: unknown) => JSON.stringify({ state: 's', criterion: { key: 'k', options }, answer_id: 'a' })
    expect(() => parseDecisions(line([{ id: 'a', text: 'A' }, { id: 'b', text: 'B', pinned: 'yes' }]), 'd.jsonl')).toThrow(/d\.jsonl:1.*criterion\.options\[1\]\.pinned/)
    expect(() => parseDecisions(line([{ id: 'a', text: 'A' }, { id: 'b', text: 'B', pinned: true }]), 'd.jsonl')).toThrow(/d\.jsonl:1.*at least 2 options that are not pinned/)
    const option = (decisionJsonSchema() as any).properties.criterion.properties.options.items
    expect(option.properties.pinned).toMatchObject({ type: 'boolean' })
    expect(option.properties.pinned.description).toMatch(/position under every ordering/)
    // Pinning changes what is scored, so it changes the fingerprint; unpinned data keeps its old one.
    const plain = parseDecisions(line([{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }]))
    const pinned = parseDecisions(line([{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C', pinned: true }]))
    expect(fingerprint(plain)).not.toBe(fingerprint(pinned))
  })

  it('always-first with a pinned tie: metrics follow the orderings actually shown', async () => {
    const rows = [pair(0, 'x'), pair(1, 'y'), pair(2, 'x'), pair(3, 'y')]
    const r = await evaluateWithScorer(rows, onSlot(() => 0), { debias: 'cyclic', ...quiet })
    expect(r.manifest.orderingsScored).toBe(2)
    expect(r.circularAccuracy).toBe(0)
    expect(r.accuracyByGoldSlot).toEqual({ A: 1, B: 0, C: null })
    expect(r.slotSensitivityGap).toBe(1)
    expect(r.letterDistribution).toEqual({ A: 1, B: 0, C: 0 })
  })
})

describe('pairwise judge audit (Shi et al.)', () => {
  it('hand-worked table: every (first order, swapped order) pick pair and its class', () => {
    const table: [PairPosition, PairPosition, string][] = [
      ['A', 'B', 'consistent'],
      ['B', 'A', 'consistent'],
      ['tie', 'tie', 'consistent'],
      ['A', 'A', 'primacy'],
      ['A', 'tie', 'primacy'],
      ['tie', 'A', 'primacy'],
      ['B', 'B', 'recency'],
      ['B', 'tie', 'recency'],
      ['tie', 'B', 'recency'],
    ]
    for (const [first, swapped, kind] of table) expect(classifyPair(first, swapped), `${first},${swapped}`).toBe(kind)
  })

  it('hand-worked audit: five pairs', () => {
    // Slots: candidates at 0 and 1, tie pinned at 2. (A,B) (A,A) (B,B) (tie,A) (B,tie).
    const picks: [number, number][] = [
      [0, 1],
      [0, 0],
      [1, 1],
      [2, 0],
      [1, 2],
    ]
    const swap = [
      [0, 1, 2],
      [1, 0, 2],
    ]
    const audit = pairwiseAudit(picks.map((picked) => ({ movable: [0, 1], orderings: swap, picked })))
    // consistent 1, primacy 2, recency 2; non-tie picks A,B,A,A,B,B,A,B → 4 of 8 first-shown.
    expect(audit).toEqual({ pairs: 5, positionConsistency: 0.2, primacy: 2, recency: 2, preferenceFairness: 0, firstShownRate: 0.5 })
    expect(pairwiseAudit([])).toBeNull()
  })

  it('a judge biased to the first-shown candidate: consistency 0, fairness −1; a position-blind judge: 1 and 0', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => pair(i, i % 2 ? 'x' : 'y'))
    const biased = await evaluateWithScorer(rows, onSlot(() => 0), { debias: 'cyclic', ...quiet })
    expect(biased.pairwise).toEqual({ pairs: 6, positionConsistency: 0, primacy: 6, recency: 0, preferenceFairness: -1, firstShownRate: 1 })
    const blind = await evaluateWithScorer(rows, byId((id) => (id === 'x' ? 0.6 : id === 'y' ? 0.3 : 0.1)), { debias: 'cyclic', ...quiet })
    expect(blind.pairwise).toEqual({ pairs: 6, positionConsistency: 1, primacy: 0, recency: 0, preferenceFairness: 0, firstShownRate: 0.5 })
    // Under none nothing is judged in both orders.
    expect((await evaluateWithScorer(rows, onSlot(() => 0), { debias: 'none', ...quiet })).pairwise).toBeNull()
  })

  it('epochs > 1: repetition stability is the share of (pair, ordering) with the same pick in every epoch', async () => {
    const rows = Array.from({ length: 4 }, (_, i) => pair(i, 'x'))
    // Epoch 1 flips to the second slot for pair p0 only: 2 of 8 (pair, ordering) are unstable.
    const flaky = onSlot((r) => ((r as ScoreRequest & { epoch?: number }).epoch === 1 && r.state === 'Question 0' ? 1 : 0))
    const r = await evaluateWithScorer(rows, flaky, { debias: 'cyclic', epochs: 2, ...quiet })
    expect(r.pairwise!.repetitionStability).toBe(0.75)
    const once = await evaluateWithScorer(rows, flaky, { debias: 'cyclic', ...quiet })
    expect(once.pairwise).not.toHaveProperty('repetitionStability')
  })
})
