// The ONNX scorer's pure stages, each alone: sharing out the tokenizing, letter columns,
// too-long prompts, run planning and token counts.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConfigError, ScorerError } from '../../../src/core/support/errors.ts'
import { tooLongFailures } from '../../../src/scorers/onnx/prompt/context-length.ts'
import { letterColumns } from '../../../src/scorers/onnx/readout/letter-columns.ts'
import type { WorkerPool } from '../../../src/scorers/onnx/runtime/pool.ts'
import type { EncodeMessage, Encoded } from '../../../src/scorers/onnx/runtime/protocol.ts'
import { planRuns } from '../../../src/scorers/onnx/runtime/run-plan.ts'
import { addCallStats } from '../../../src/scorers/onnx/stats.ts'
import { splitByCharacters, tokenise } from '../../../src/scorers/onnx/prompt/tokenise.ts'

/** A pool whose workers "tokenize" each character as its code point; records every encode job. */
function fakePool(jobs: string[][] = []): WorkerPool {
  return {
    encode: async ({ payload }: { payload: Omit<EncodeMessage, 'type' | 'id'> }): Promise<Encoded> => {
      jobs.push([...payload.texts])
      const parts = payload.texts.map((text) => Int32Array.from(text, (c) => c.codePointAt(0)!))
      const letters = payload.texts.flatMap((text, i) => Array.from({ length: payload.letterCounts[i]! }, (_, k) => 1000 * text.length + k))
      return { ids: Int32Array.from(parts.flatMap((p) => [...p])), lengths: Int32Array.from(parts, (p) => p.length), letters: Int32Array.from(letters) }
    },
  } as unknown as WorkerPool
}

describe('splitByCharacters', () => {
  it('cuts into at most `parts` contiguous, non-empty shares covering every item in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (sizes, parts) => {
        const shares = splitByCharacters(sizes, parts)
        expect(shares.length).toBeLessThanOrEqual(parts)
        expect(shares.flatMap(([a, b]) => Array.from({ length: b - a }, (_, i) => a + i))).toEqual(sizes.map((_, i) => i))
        for (const [a, b] of shares) expect(b).toBeGreaterThan(a)
      }),
    )
  })

  it('balances by characters, not by count', () => {
    expect(splitByCharacters([1000, 10, 10, 10, 970], 2)).toEqual([
      [0, 1],
      [1, 5],
    ])
    expect(splitByCharacters([5, 5, 5, 5], 2)).toEqual([
      [0, 2],
      [2, 4],
    ])
  })
})

describe('tokenise', () => {
  it('encodes each distinct text once, in one job per worker, and gives every request its own ids and letters', async () => {
    const jobs: string[][] = []
    const texts = ['aa', 'bbb', 'aa', 'c', 'bbb', 'aa']
    const letterCounts = [2, 3, 2, 4, 3, 2]
    const out = await tokenise(fakePool(jobs), { texts, letterCounts, special: true }, 2, String, { cancelled: false })
    expect(jobs.flat().sort()).toEqual(['aa', 'bbb', 'c'])
    expect(jobs).toHaveLength(2)
    expect(out.ids.map((ids) => String.fromCodePoint(...ids))).toEqual(texts)
    expect(out.letters.map((l) => [...l])).toEqual(texts.map((t, r) => Array.from({ length: letterCounts[r]! }, (_, k) => 1000 * t.length + k)))
  })

  it('a text with another letter count is another job item (a template may ignore the options)', async () => {
    const jobs: string[][] = []
    const out = await tokenise(fakePool(jobs), { texts: ['x', 'x'], letterCounts: [2, 3], special: true }, 1, String, { cancelled: false })
    expect(jobs.flat()).toEqual(['x', 'x'])
    expect(out.letters.map((l) => l.length)).toEqual([2, 3])
  })

  it('a request that encodes to no tokens is a ScorerError naming it', async () => {
    await expect(tokenise(fakePool(), { texts: ['a', ''], letterCounts: [2, 2], special: true }, 2, String, { cancelled: false })).rejects.toThrow(
      new ScorerError('request #1 encodes to no tokens; nothing to score'),
    )
  })

  it('a failed job cancels the rest of the call', async () => {
    const pool = { encode: async () => Promise.reject(new ConfigError('bad letter')) } as unknown as WorkerPool
    const cancel = { cancelled: false }
    await expect(tokenise(pool, { texts: ['a'], letterCounts: [2], special: true }, 1, String, cancel)).rejects.toThrow('bad letter')
    expect(cancel.cancelled).toBe(true)
  })
})

describe('letterColumns', () => {
  const base = { modelPath: 'm.onnx', tokenizerPath: 't.json', readoutFile: undefined, vocab: 100 }

  it('full logits: the token ids themselves, each inside the vocabulary', () => {
    expect([...letterColumns(Int32Array.from([7, 8]), base)]).toEqual([7, 8])
    expect(() => letterColumns(Int32Array.from([7, 100]), base)).toThrow("t.json: letter token id 100 is outside the model's vocabulary (100 logits); the tokenizer does not match m.onnx")
  })

  it('an optimized readout: the letter columns, or a ConfigError when the ids or the count do not match', () => {
    const readoutFile = { format: 'sceptic-readout/1' as const, letterIds: [7, 8, 9], vocab: 100, positions: 'last' as const, source: 'model.onnx' }
    const target = { ...base, readoutFile, vocab: 3 }
    expect([...letterColumns(Int32Array.from([7, 8, 9]), target)]).toEqual([0, 1, 2])
    // Columns are found by token id: a head made for " A".." C" and "A".."C" serves either ending.
    expect([...letterColumns(Int32Array.from([9, 7]), target)]).toEqual([2, 0])
    expect(() => letterColumns(Int32Array.from([7, 5]), target)).toThrow('m.onnx: the letter head has no row for token 5 (letter B after this prompt)')
    expect(() => letterColumns(Int32Array.from([7, 8, 9, 10]), target)).toThrow("m.onnx: the letter head has no row for token 10 (letter D after this prompt); it keeps the letters' tokens after \"Answer:\" and after a newline")
  })
})

describe('tooLongFailures', () => {
  it('fails exactly the prompts longer than the limit; no limit fails none', () => {
    const ids = [new Int32Array(3), new Int32Array(4), new Int32Array(5)]
    expect(tooLongFailures(ids, 4).map((f) => f?.failure)).toEqual([undefined, undefined, 'too_long'])
    expect(tooLongFailures(ids, 4)[2]!.message).toBe("the prompt is 5 tokens; the model's context is 4 (contextLength)")
    expect(tooLongFailures(ids, undefined)).toEqual([undefined, undefined, undefined])
  })
})

describe('planRuns and addCallStats', () => {
  const settings = { prefixSharing: 'batched' as const, workers: 2, batchSize: 4, maxLogitsBytes: 256 * 2 ** 20 }
  const model = { prefixCache: true, attentionMask: true, logitsColumns: 50 }
  /** Rows that share `shared` leading tokens, then differ. */
  const rows = (count: number, shared: number, tail: number) => Array.from({ length: count }, (_, r) => Int32Array.from({ length: shared + tail }, (_, i) => (i < shared ? i + 1 : 100 + r * 10 + i)))

  it('every runnable request is in exactly one run, with its own letters, and each run packs its rows in order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 6 })), { minLength: 1, maxLength: 6 }), fc.constantFrom('batched', 'sequential', 'off'), (spec, prefixSharing) => {
        const ids = spec.flatMap(([count, shared, tail]) => rows(count, shared, tail))
        const letters = ids.map((_, r) => Int32Array.from([r % 7, (r % 7) + 1]))
        const runnable = ids.map((_, r) => r).filter((r) => r % 5 !== 4)
        const { runs, shared } = planRuns(ids, letters, runnable, { ...settings, prefixSharing }, model)
        expect(runs.flatMap((run) => run.rows).sort((a, b) => a - b)).toEqual(runnable)
        for (const { rows: runRows, payload } of runs) {
          const P = payload.prefix?.length ?? 0
          expect([...payload.letters]).toEqual(runRows.flatMap((r) => [...letters[r]!]))
          expect([...payload.lengths]).toEqual(runRows.map((r) => ids[r]!.length - P))
          expect([...payload.ids]).toEqual(runRows.flatMap((r) => [...ids[r]!.subarray(P)]))
          for (const r of runRows) expect([...ids[r]!.subarray(0, P)]).toEqual([...(payload.prefix ?? [])])
        }
        if (prefixSharing === 'off') expect(shared.groups).toEqual([])
        const stats = { requests: 0, promptTokens: 0, tokensRun: 0, sharedGroups: 0, sharedRequests: 0 }
        addCallStats(stats, ids, runnable, shared)
        expect(stats.requests).toBe(runnable.length)
        expect(stats.promptTokens).toBe(runnable.reduce((sum, r) => sum + ids[r]!.length, 0))
        // Tokens run: each run's prefix once plus every id it sends.
        expect(stats.tokensRun).toBe(runs.reduce((sum, run) => sum + (run.payload.prefix?.length ?? 0) + run.payload.ids.length, 0))
      }),
    )
  })

  it('a model without a cache gets full prompts only', () => {
    const ids = rows(4, 40, 3)
    const { runs } = planRuns(ids, ids.map(() => Int32Array.from([1, 2])), [0, 1, 2, 3], settings, { ...model, prefixCache: false })
    expect(runs.every((run) => run.payload.prefix === undefined)).toBe(true)
  })

  it("one decision's orderings share their prefix, split across both workers", () => {
    const ids = rows(4, 40, 3)
    const { runs, shared } = planRuns(ids, ids.map(() => Int32Array.from([1, 2])), [0, 1, 2, 3], settings, model)
    expect(shared.groups.map((g) => g.rows)).toEqual([
      [0, 1],
      [2, 3],
    ])
    expect(runs.map((run) => run.payload.prefix?.length)).toEqual([40, 40])
  })
})
