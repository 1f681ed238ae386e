// Prefix sharing: adjacent requests with a common token prefix run it once and their
// suffixes against its key/value cache. Must equal full-prompt scoring within 1e-5.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildPrompt } from '../../../../src/core/requests/prompt.ts'
import type { Criterion } from '../../../../src/core/decisions/schema.ts'
import type { ScoreRequest } from '../../../../src/core/scorer/contract.ts'
import { suffixPad } from '../../../../src/scorers/onnx/runtime/feeds.ts'
import { commonPrefix, groupByPrefix } from '../../../../src/scorers/onnx/runtime/prefix.ts'
import { loadTokenizer } from '../../../../src/scorers/onnx/prompt/tokenizer.ts'
import type { ModelDirOptions } from '../../../../scripts/onnx-fixture/index.ts'
import { makeModel, maxAbsDiff, QUEUE, SENTIMENT, scorerFactory } from '../helpers.ts'

const scorer = scorerFactory()

const EVIDENCE = [
  'The customer writes that the invoice for March was charged twice to the same card, once on the first and again on the third.',
  'They attach a screenshot of the bank statement and ask for the second payment to be refunded before the end of the week.',
]
const PRIORITY: Criterion = {
  key: 'priority',
  question: 'How urgent is it?',
  options: [
    { id: 'low', text: 'Low, can wait for the weekly batch' },
    { id: 'high', text: 'High' },
    { id: 'mid', text: 'Medium priority' },
  ],
}

/** All rotations of `criterion` on `state`, optionally twice (epochs), in evaluator order. */
function rotations(state: string, criterion: Criterion, epochs = 1): ScoreRequest[] {
  const out: ScoreRequest[] = []
  for (let epoch = 0; epoch < epochs; epoch++)
    for (let k = 0; k < criterion.options.length; k++) {
      const options = criterion.options.map((_, i) => criterion.options[(i + k) % criterion.options.length]!)
      const c = { ...criterion, options }
      out.push({ state, criterion: c, prompt: buildPrompt(state, c), ...(epochs > 1 ? { epoch } : {}) })
    }
  return out
}

/**
 * Decisions as the evaluator sends them: rotations adjacent; two criteria on one
 * state (queue, then priority: uneven suffix lengths, so padding between prefix and
 * suffix); epochs adjacent; a short unrelated decision; a lone request; content-free "N/A".
 */
function decisions(): ScoreRequest[] {
  return [
    ...rotations(EVIDENCE.join(' '), QUEUE),
    ...rotations(EVIDENCE.join(' '), PRIORITY),
    ...rotations(EVIDENCE[1]!, SENTIMENT, 2),
    ...rotations('Please cancel my subscription.', QUEUE),
    { state: 'Lone.', criterion: SENTIMENT, prompt: buildPrompt('Lone.', SENTIMENT) },
    ...rotations('N/A', QUEUE),
  ]
}

const variants: [string, ModelDirOptions][] = [
  ['position_ids, multi-head', { decoder: { seed: 11 } }],
  ['no position_ids (derived from the mask in-graph)', { decoder: { positionIds: false, seed: 12 } }],
  ['grouped-query attention (8 heads, 2 KV heads)', { decoder: { hidden: 64, heads: 8, kvHeads: 2, seed: 13 } }],
  ['GQA without position_ids', { decoder: { hidden: 64, heads: 8, kvHeads: 2, positionIds: false, seed: 14 } }],
]

describe.each(variants)('prefix sharing equals full prompts: %s', (_, options) => {
  const dir = makeModel({ tokenizer: 'bpe', ...options })
  const requests = decisions()

  it('batched and sequential suffixes give the full-prompt probabilities within 1e-5', async () => {
    const full = scorer({ model: dir, workers: 1, prefixSharing: 'off' })
    const batched = scorer({ model: dir, workers: 2, prefixSharing: 'batched' })
    const sequential = scorer({ model: dir, workers: 1, prefixSharing: 'sequential', batchSize: 2 })
    const expected = await full(requests)
    const got = await batched(requests)
    expect(maxAbsDiff(got, expected)).toBeLessThan(1e-5)
    expect(maxAbsDiff(await sequential(requests), expected)).toBeLessThan(1e-5)
    // Sharing really happened: most requests ran as suffixes, and far fewer tokens ran.
    expect(full.stats.sharedGroups).toBe(0)
    expect(full.stats.tokensRun).toBe(full.stats.promptTokens)
    expect(batched.stats.sharedGroups).toBeGreaterThanOrEqual(3)
    expect(batched.stats.sharedRequests).toBeGreaterThanOrEqual(requests.length - 5)
    expect(batched.stats.tokensRun).toBeLessThan(0.6 * batched.stats.promptTokens)
    // And a random model still discriminates, so equality is not trivial.
    expect(maxAbsDiff([got[0]!], [got[1]!])).toBeGreaterThan(1e-4)
  })
})

describe('prefix sharing on other models and calls', () => {
  it('a model without past inputs scores full prompts (nothing shared), same numbers', async () => {
    const dir = makeModel({ tokenizer: 'bpe', decoder: { past: false, seed: 15 } })
    const requests = decisions()
    const s = scorer({ model: dir, workers: 1 })
    const info = await s.ready()
    expect(info.plan.prefixCache).toBe(false)
    const got = await s(requests)
    expect(s.stats.sharedGroups).toBe(0)
    expect(maxAbsDiff(got, await scorer({ model: dir, workers: 1, prefixSharing: 'off' })(requests))).toBeLessThan(1e-5)
  })

  it('a group with more suffixes than batchSize runs them in several runs on one cache', async () => {
    const dir = makeModel({ tokenizer: 'bpe', decoder: { seed: 16 } })
    const requests = [...rotations(EVIDENCE.join(' '), QUEUE, 3)] // 12 suffixes, batch 4 → 3 suffix runs
    const got = await scorer({ model: dir, workers: 1, batchSize: 4 })(requests)
    const expected = await scorer({ model: dir, workers: 1, prefixSharing: 'off' })(requests)
    expect(maxAbsDiff(got, expected)).toBeLessThan(1e-5)
    // A logits cap below one suffix row's logits: one suffix per run, same numbers.
    expect(maxAbsDiff(await scorer({ model: dir, workers: 1, batchSize: 4, maxLogitsBytes: 1024 })(requests), expected)).toBeLessThan(1e-5)
    // Epochs of one decision are identical prompts: identical vectors.
    expect(maxAbsDiff(got.slice(0, 4), got.slice(8, 12))).toBeLessThan(1e-6)
  })

  it('a call holding one decision is split across the workers (each part reruns the prefix), same numbers', async () => {
    const dir = makeModel({ tokenizer: 'bpe', decoder: { seed: 18 } })
    const requests = rotations(EVIDENCE.join(' '), QUEUE)
    const s = scorer({ model: dir, workers: 2 })
    const got = await s(requests)
    expect(s.stats.sharedGroups).toBe(2)
    expect(s.stats.sharedRequests).toBe(4)
    expect(maxAbsDiff(got, await scorer({ model: dir, workers: 1, prefixSharing: 'off' })(requests))).toBeLessThan(1e-5)
  })

  it('splits on token ids: every suffix is the full prompt minus the same leading ids', async () => {
    const dir = makeModel({ tokenizer: 'bpe' })
    const tokenizer = await loadTokenizer(dir)
    const ids = decisions().map((r) => tokenizer.encode(r.prompt))
    const plan = groupByPrefix(ids)
    for (const group of plan.groups) {
      const head = ids[group.rows[0]!]!.subarray(0, group.prefixLength)
      for (const r of group.rows) {
        expect([...ids[r]!.subarray(0, group.prefixLength)]).toEqual([...head])
        expect(ids[r]!.length).toBeGreaterThan(group.prefixLength)
      }
    }
    // The queue and priority criteria on one state share the evidence: one group of 7.
    expect(plan.groups[0]!.rows).toEqual([0, 1, 2, 3, 4, 5, 6])
  })
})

describe('groupByPrefix (pure)', () => {
  it('covers each request once; groups share ≥ minPrefix leading ids and leave every row ≥ 1 token', () => {
    const token = fc.integer({ min: 0, max: 3 })
    fc.assert(
      fc.property(fc.array(fc.array(token, { minLength: 1, maxLength: 30 }), { maxLength: 12 }), fc.integer({ min: 1, max: 6 }), (rows, minPrefix) => {
        const plan = groupByPrefix(rows, minPrefix)
        const seen = [...plan.singles, ...plan.groups.flatMap((g) => g.rows)].sort((a, b) => a - b)
        expect(seen).toEqual(rows.map((_, i) => i))
        for (const group of plan.groups) {
          expect(group.rows.length).toBeGreaterThanOrEqual(2)
          expect(group.prefixLength).toBeGreaterThanOrEqual(minPrefix)
          for (let i = 1; i < group.rows.length; i++) expect(group.rows[i]).toBe(group.rows[i - 1]! + 1) // adjacent
          for (const r of group.rows) {
            expect(commonPrefix(rows[group.rows[0]!]!, rows[r]!)).toBeGreaterThanOrEqual(group.prefixLength)
            expect(rows[r]!.length).toBeGreaterThan(group.prefixLength)
          }
        }
      }),
    )
  })

  it('does not let a short common preamble swallow two decisions with long evidence each', () => {
    const preamble = Array.from({ length: 20 }, (_, i) => i)
    const a = [...preamble, ...Array.from({ length: 200 }, () => 100)]
    const b = [...preamble, ...Array.from({ length: 200 }, () => 200)]
    const plan = groupByPrefix([[...a, 1], [...a, 2], [...b, 1], [...b, 2]])
    expect(plan.groups.map((g) => [g.rows, g.prefixLength])).toEqual([
      [[0, 1], 220],
      [[2, 3], 220],
    ])
  })
})

describe('suffixPad', () => {
  it('masks the prefix in, pads between prefix and suffix, and continues positions over real tokens', () => {
    const batch = suffixPad([7, 8, 9], [1, 2], 3)
    expect(batch.width).toBe(2)
    expect([...batch.inputIds].map(Number)).toEqual([0, 7, 8, 9])
    expect([...batch.attentionMask].map(Number)).toEqual([1, 1, 1, 0, 1, 1, 1, 1, 1, 1])
    expect([...batch.positionIds].map(Number)).toEqual([0, 3, 3, 4])
  })
})

describe('through the evaluator: calibrated, PriDe and epochs take the same path', () => {
  it('records equal prefix-off scoring (within 1e-5) under cyclic, calibrated and pride, epochs 2', async () => {
    const { evaluateWithScorer } = await import('../../../../src/core/evaluate/index.ts')
    const dir = makeModel({ tokenizer: 'bpe', decoder: { seed: 17 } })
    const states = [EVIDENCE.join(' '), EVIDENCE[0]!, EVIDENCE[1]!, 'The app crashes when the user opens the settings page after the latest update.']
    const data = states.flatMap((state, i) => [
      { id: `q${i}`, state, criterion: QUEUE, answer_id: QUEUE.options[i % 4]!.id },
      { id: `p${i}`, state, criterion: PRIORITY, answer_id: PRIORITY.options[i % 3]!.id },
    ])
    const off = scorer({ model: dir, workers: 1, prefixSharing: 'off' })
    const on = scorer({ model: dir, workers: 2 })
    for (const debias of ['cyclic', 'calibrated', 'pride'] as const) {
      const options = { debias, epochs: 2, statistics: false as const, prideFraction: 0.5 }
      const before = on.stats.sharedRequests
      const a = await evaluateWithScorer(data, off, options)
      const b = await evaluateWithScorer(data, on, options)
      expect(on.stats.sharedRequests).toBeGreaterThan(before)
      a.records.forEach((record, i) => {
        for (const [id, p] of Object.entries(record.probabilities)) expect(Math.abs(p - b.records[i]!.probabilities[id]!)).toBeLessThan(1e-5)
      })
    }
  })
})
