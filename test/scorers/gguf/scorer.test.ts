// ggufScorer on generated GGUF files: strict options (a misspelt key is named), the
// quantized twins (F16, Q8_0) against F32, the same numbers whatever the sequences,
// too_long failures, a closed scorer, and the cache identity.
import { cpuKind } from '../../../src/core/support/cpu-kind.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import type { EvalResult } from '../../../src/core/result/result.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import { ggufScorer, type GgufScorer } from '../../../src/scorers/gguf/index.ts'
import { decisions, temp, writeTwins } from './helpers.ts'

const { gguf } = writeTwins(undefined, ['F32', 'F16', 'Q8_0'])
const open: GgufScorer[] = []
const make = (options: Parameters<typeof ggufScorer>[0]) => {
  const scorer = ggufScorer({ threads: 1, ...options })
  open.push(scorer)
  return scorer
}
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()))
  temp.removeAll()
})

describe('options', () => {
  it('refuses an unknown key, naming it', () => {
    expect(() => ggufScorer({ model: gguf.F32!, thread: 2 } as never)).toThrow(ConfigError)
    expect(() => ggufScorer({ model: gguf.F32!, thread: 2 } as never)).toThrow(/unknown option `thread`/)
    expect(() => ggufScorer({ model: gguf.F32!, workers: 2 } as never)).toThrow(/unknown option `workers`/)
  })
  it('refuses a wrong type, naming the key, and a missing model', () => {
    expect(() => ggufScorer({ model: gguf.F32!, sequences: 0 })).toThrow(/`sequences`/)
    expect(() => ggufScorer({ model: gguf.F32!, kvCacheType: 'F8' as never })).toThrow(/`kvCacheType`/)
    expect(() => ggufScorer({} as never)).toThrow(/`model` \(the path of a \.gguf file\) is required/)
  })
  it('keys the cache by the file, the llama.cpp build and the settings that move the numbers', () => {
    const a = make({ model: gguf.F32! }).cacheIdentity!
    expect(a).toMatchObject({ kind: 'gguf', files: { model: gguf.F32 }, settings: { nodeLlamaCpp: '3.22.1', readout: 'letter-logits', kvCacheType: 'F32', flashAttention: false, cpu: cpuKind().kind } })
    expect(make({ model: gguf.F32!, kvCacheType: 'F16' }).cacheIdentity!.settings).toMatchObject({ kvCacheType: 'F16' })
    // Threads and sequences are keyed (sequences side by side once swapped requests' outputs); the batch size is not.
    expect(make({ model: gguf.F32!, sequences: 2 }).cacheIdentity!.settings).toMatchObject({ sequences: 2 })
    expect(make({ model: gguf.F32!, threads: 3 }).cacheIdentity!.settings).toMatchObject({ threads: 3 })
    expect(make({ model: gguf.F32!, sequences: (a.settings as { sequences: number }).sequences, threads: (a.settings as { threads: number }).threads, batchSize: 64 }).cacheIdentity).toEqual(a)
    expect(make({ model: gguf.F32!, template: (state) => state }).cacheIdentity).toBeUndefined()
  })
})

describe('scoring', () => {
  const DECISIONS = decisions(40)
  const results: Record<string, EvalResult> = {}
  beforeAll(async () => {
    for (const type of ['F32', 'F16', 'Q8_0']) results[type] = await evaluateWithScorer(DECISIONS, make({ model: gguf[type]! }), { debias: 'cyclic' })
    results.fourSequences = await evaluateWithScorer(DECISIONS, make({ model: gguf.F32!, sequences: 4 }), { debias: 'cyclic' })
  }, 120_000)

  const maxDiff = (a: EvalResult, b: EvalResult) =>
    Math.max(...a.records.flatMap((r, i) => Object.entries(r.probabilities).map(([k, p]) => Math.abs(p - b.records[i]!.probabilities[k]!))))

  // Four sequences once handed requests each other's probabilities (0.24 away, under Node 22 in CI):
  // llama.cpp's lazy output reorder raced between threads; sequences.test.ts holds the regression.
  it('gives the same probabilities on four sequences as on one (the default)', () => {
    expect(maxDiff(results.F32!, results.fourSequences!)).toBeLessThan(1e-5)
  })

  const agreeing = (type: string) => results[type]!.records.filter((r, i) => r.prediction === results.F32!.records[i]!.prediction).length

  it('an F16 file of the same weights stays within 0.02 of F32 and picks the same options', () => {
    expect(maxDiff(results.F32!, results.F16!)).toBeLessThan(0.02)
    expect(maxDiff(results.F32!, results.F16!)).toBeGreaterThan(0) // a different file, really
    expect(agreeing('F16')).toBeGreaterThanOrEqual(39)
  })

  it('a Q8_0 file picks as F32 on most decisions of this deliberately sensitive model', () => {
    // Measured: 33 of 40 picks, max |dp| 0.13 (sharp attention and a confident head amplify
    // llama.cpp's 8-bit weights and its 8-bit activations in Q8_0 products). A layout error
    // in the writer (scales, block order) gives chance agreement, about 10 of 40.
    expect(maxDiff(results.F32!, results.Q8_0!)).toBeGreaterThan(0)
    expect(agreeing('Q8_0')).toBeGreaterThanOrEqual(28)
  })

  it('returns too_long for a prompt over contextLength, and scores the rest', async () => {
    const scorer = make({ model: gguf.F32!, contextLength: 64 })
    const criterion = { key: 'q', options: [{ id: 'a', text: 'Yes' }, { id: 'b', text: 'No' }] }
    const long = 'The invoice was charged twice. '.repeat(20)
    const out = await scorer([
      { state: 'A user cannot log in.', criterion, prompt: buildPrompt('A user cannot log in.', criterion) },
      { state: long, criterion, prompt: buildPrompt(long, criterion) },
    ])
    expect(Array.isArray(out[0])).toBe(true)
    expect(out[1]).toMatchObject({ failure: 'too_long' })
  })

  it('rejects calls after close()', async () => {
    const scorer = make({ model: gguf.F32! })
    await scorer.close()
    await expect(scorer([])).rejects.toThrow(/closed/)
  })

  it('close() stops a startup stuck in a runaway chat template at once, not at its 30 s limit', async () => {
    // Loops 10^10 times: only the renderer's deadline or the scorer's close ends it.
    const LOOP = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}{{ messages[0].content }}'
    const scorer = make({ model: gguf.F32!, chatTemplate: LOOP })
    const starting = scorer.ready()
    starting.catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const started = performance.now()
    await scorer.close()
    expect(performance.now() - started).toBeLessThan(5_000)
    await expect(starting).rejects.toThrow(/closed while it was starting/)
  }, 30_000)
})
