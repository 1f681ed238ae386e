/** A scorer outcome `{ probabilities, pick?, flags? }`: a stated pick is checked, then it is the ordering's pick. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cachedScorer } from '../../../src/cache/cached-scorer.ts'
import { CacheStore } from '../../../src/cache/store.ts'
import { parsePartFile, partFileText, reassemble, recordingScorer } from '../../../src/core/shards/part-file.ts'
import { evaluateReassembled } from '../../../src/core/shards/replay.ts'
import { evaluateWithScorer, FAILURE_REASONS, isScoredOutcome, scoreFailure, type FallibleScoreFn } from '../../../src/core/index.ts'
import { ScorerError } from '../../../src/core/support/errors.ts'
import { fingerprint } from '../../../src/core/decisions/fingerprint.ts'
import { orderingPick } from '../../../src/core/evaluate/aggregate.ts'
import { decision } from '../../helpers/decisions.ts'

/** Every request answered by `answer(slotCount, request index, epoch)`. */
function stating(answer: (n: number, index: number, epoch: number) => { probabilities: number[]; pick?: number; flags?: string[] }): FallibleScoreFn {
  let index = 0
  return (requests) => requests.map((request) => answer(request.criterion.options.length, index++, request.epoch ?? 0))
}

describe('a stated pick', () => {
  it.each([
    ['out of range', 3, /stated pick 3 for .*a pick must be a slot index from 0 to 2/],
    ['negative', -1, /stated pick -1 /],
    ['not an integer', 0.5, /stated pick 0.5 /],
    ['not a number', '0', /stated pick of type string /],
    ['not maximal', 1, /stated pick B for .*not a maximal slot/],
  ])('that is %s is a ScorerError naming the request', async (_, pick, message) => {
    const scorer: FallibleScoreFn = (requests) => requests.map(() => ({ probabilities: [0.5, 0.3, 0.2], pick: pick as number }))
    const run = evaluateWithScorer([decision(3, 0, { id: 'q-7' })], scorer, { debias: 'none' })
    await expect(run).rejects.toBeInstanceOf(ScorerError)
    await expect(run).rejects.toThrow(message)
    await expect(run).rejects.toThrow(/q-7/)
  })

  it('within a relative 1e-12 of the maximum is maximal; one just outside it is not', async () => {
    const near = (gap: number): FallibleScoreFn => (requests) => requests.map(() => ({ probabilities: [1, 1 - gap], pick: 1 }))
    const inside = await evaluateWithScorer([decision(2, 1)], near(1e-13), { debias: 'none' })
    expect(inside.records[0]!.letters).toEqual(['B'])
    await expect(evaluateWithScorer([decision(2, 1)], near(1e-10), { debias: 'none' })).rejects.toThrow(/not a maximal slot/)
  })

  it('is the per-ordering pick: a flat vector with stated slot C counts C every time, not A', async () => {
    const result = await evaluateWithScorer([decision(3, 0), decision(3, 1)], stating((n) => ({ probabilities: Array(n).fill(1), pick: 2 })), { debias: 'cyclic' })
    expect(result.letterDistribution).toEqual({ A: 0, B: 0, C: 1 })
    // slot C holds a different option id under each rotation: the stated picks are not order-consistent
    expect(result.orderConsistency).toBe(0)
    expect(result.records[0]!.letters).toEqual(['C', 'C', 'C'])
  })

  it('flags are optional, and a bare { probabilities } is a vector', async () => {
    const result = await evaluateWithScorer([decision(2, 0)], (requests) => requests.map(() => ({ probabilities: [3, 1] })), { debias: 'none' })
    expect(result.records[0]!.prediction).toBe('o0')
    expect(result.records[0]!.flags).toBeUndefined()
    expect(isScoredOutcome({ probabilities: [1] })).toBe(true)
    expect(isScoredOutcome([1, 2])).toBe(false)
    expect(isScoredOutcome({ failure: 'refusal', message: 'no' })).toBe(false)
  })

  it('with several epochs the ordering pick is the plurality of the stated picks', async () => {
    // epochs 0 and 1 answer B, epoch 2 answers A: B has the plurality
    const scorer = stating((n, _, epoch) => ({ probabilities: epoch === 2 ? [2, 1] : [1, 2], pick: epoch === 2 ? 0 : 1 }))
    const result = await evaluateWithScorer([decision(2, 1)], scorer, { debias: 'none', epochs: 3 })
    expect(result.records[0]!.letters).toEqual(['B'])
  })
})

describe('orderingPick (closed form)', () => {
  it.each([
    [[2], 1, [2]],
    [[undefined], 1, undefined],
    [[1, 1, 0], 3, [1]],
    [[0, 1, 2], 3, [0, 1, 2]],
    [[2, 0, 2, 0], 4, [0, 2]],
    [[1, undefined, 1], 3, undefined],
  ] as const)('stated %j over %i epochs → %j', (stated, epochs, expected) => {
    expect(orderingPick(stated, 0, epochs)).toEqual(expected)
  })
})

describe('the refusal bucket', () => {
  it('is a failure reason, counted like the others', async () => {
    expect(FAILURE_REASONS).toContain('refusal')
    const scorer: FallibleScoreFn = (requests) =>
      requests.map((request) => (request.state === 'refuse' ? scoreFailure('refusal', 'the model declined to answer') : [2, 1]))
    const result = await evaluateWithScorer([decision(2, 0, { state: 'refuse' }), decision(2, 0)], scorer, { debias: 'none' })
    expect(result.failed).toBe(1)
    expect(result.manifest.failedByReason).toEqual({ refusal: 1 })
    expect(result.failures[0]!.reason).toBe('refusal')
  })
})

describe('a stated pick survives the score cache and shard parts', () => {
  it('a shard part keeps the pick, so a merge replays the same letters', async () => {
    const recording = recordingScorer(stating((n) => ({ probabilities: Array(n).fill(1), pick: n - 1 })))
    const data = [decision(3, 0, { id: 'a' }), decision(2, 1, { id: 'b' })]
    const direct = await evaluateWithScorer(data, recording.score, { debias: 'cyclic' })
    const text = partFileText({
      shard: { index: 1, count: 1 },
      // A merge recomputes the rows' fingerprint and refuses a header that does not match.
      fingerprint: fingerprint(data),
      rows: data.length,
      settings: { debias: 'cyclic', seed: 0, epochs: 1, reducer: 'mean', average: 'probability', storePrompts: false },
      scorer: 'stating',
      scorerId: 'stating-id',
      manifest: {},
      cache: undefined,
      records: direct.records.length,
      decisions: data.map((d, position) => ({ position, decision: d })),
      answers: recording.answers,
    })
    const part = parsePartFile(text, 'p.shard.jsonl')
    expect(part.answers.map(({ outcome }) => (outcome as { pick?: number }).pick)).toEqual([2, 2, 2, 1, 1])
    const merged = await evaluateReassembled(reassemble([part]))
    expect(merged.records.map((r) => r.letters)).toEqual(direct.records.map((r) => r.letters))
    expect(merged.letterDistribution).toEqual({ A: 0, B: 0.4, C: 0.6 })
  })

  it('an outcome with a stated pick is not cached (an entry cannot hold it), so a warm run asks again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sceptic-pick-'))
    try {
      let asked = 0
      const inner: FallibleScoreFn = (requests) => requests.map(() => (asked++, { probabilities: [1, 1], pick: 1 }))
      const identity = { kind: 'user', label: 'stating', settings: { cacheKey: 'v1' } } as const
      for (let run = 0; run < 2; run++) {
        const store = new CacheStore(dir)
        const result = await evaluateWithScorer([decision(2, 1)], cachedScorer(inner, { identity, store }), { debias: 'none' })
        await store.close()
        expect(result.records[0]!.letters).toEqual(['B'])
      }
      expect(asked).toBe(2)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
