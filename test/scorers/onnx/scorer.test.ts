// The ONNX scorer end to end on generated models: real onnxruntime sessions in the
// built worker (dist/onnx/worker.js; run `npx tsup` first, `npm test` does).
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import { describe, expect, it, vi } from 'vitest'
import { ConfigError, ScorerError } from '../../../dist/onnx/index.js'
import { onnxScorer } from './internal.ts'
import { leftPad } from '../../../src/scorers/onnx/runtime/feeds.ts'
import { softmax } from '../../../src/scorers/onnx/readout/readout.ts'
import { loadTokenizer } from '../../../src/scorers/onnx/prompt/tokenizer.ts'
import type { ModelDirOptions } from '../../../scripts/onnx-fixture/index.ts'
import { makeModel, maxAbsDiff, request, sampleRequests, SENTIMENT, scorerFactory, vectors } from './helpers.ts'

const scorer = scorerFactory()

/**
 * Independent reference: each prompt alone on a main-thread session, no padding,
 * positions 0..n-1, empty past, softmax over the letter logits at the last position.
 */
async function reference(dir: string, requests = sampleRequests(), positionIds = true): Promise<number[][]> {
  const session = await ort.InferenceSession.create(readFileSync(join(dir, 'model.onnx')))
  const tokenizer = await loadTokenizer(dir)
  const out: number[][] = []
  for (const r of requests) {
    const ids = tokenizer.encode(r.prompt)
    const n = ids.length
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
    }
    if (positionIds) feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(i)), [1, n])
    for (const input of session.inputNames.filter((name) => name.startsWith('past_key_values'))) {
      const meta = session.inputMetadata.find((m) => m.name === input) as unknown as { shape: (number | string)[] }
      feeds[input] = new ort.Tensor('float32', new Float32Array(0), [1, meta.shape[1] as number, 0, meta.shape[3] as number])
    }
    const { logits } = await session.run(feeds)
    const [, s, v] = logits!.dims as number[]
    const data = logits!.data as Float32Array
    const letters = tokenizer.letterIds(r.criterion.options.length)
    out.push(softmax([...letters].map((id) => data[(s! - 1) * v! + id]!)))
  }
  await session.release()
  return out
}

const variants: [string, ModelDirOptions, boolean][] = [
  ['position_ids + past, BPE', { tokenizer: 'bpe' }, true],
  ['no position_ids (derived in-graph from the mask)', { tokenizer: 'bpe', decoder: { positionIds: false } }, false],
  ['grouped-query attention (4 heads, 2 KV heads)', { tokenizer: 'bpe', decoder: { heads: 4, kvHeads: 2 } }, true],
  ['no past inputs, WordLevel', { tokenizer: 'wordlevel', decoder: { past: false } }, true],
  ['onnx/model.onnx layout', { tokenizer: 'bpe', nested: true }, true],
]

describe.each(variants)('model: %s', (_, options, positionIds) => {
  const dir = makeModel(options)
  const requests = sampleRequests()

  it('left-padded batches give the solo probabilities (within 1e-5), matching an independent reference', async () => {
    const batched = await scorer({ model: dir, workers: 1, batchSize: 32 })(requests)
    const solo = await scorer({ model: dir, workers: 2, batchSize: 1 })(requests)
    const lengths = new Set(requests.map((r) => r.prompt.length))
    expect(lengths.size).toBeGreaterThan(3) // really padded
    expect(maxAbsDiff(batched, solo)).toBeLessThan(1e-5)
    if (!options.nested) expect(maxAbsDiff(batched, await reference(dir, requests, positionIds))).toBeLessThan(1e-5)
    // One vector per request, as long as its options, summing to 1.
    vectors(batched).forEach((vector, i) => {
      expect(vector).toHaveLength(requests[i]!.criterion.options.length)
      expect(vector.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9)
    })
    // A random model still discriminates: not all vectors equal.
    expect(maxAbsDiff([batched[0]!], [batched[1]!])).toBeGreaterThan(1e-4)
  })
})

describe('position_ids matter', () => {
  it('a padded row with naive 0..T-1 positions would differ from solo; cumsum positions do not', async () => {
    const dir = makeModel({ tokenizer: 'bpe' })
    const tokenizer = await loadTokenizer(dir)
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'))
    const short = tokenizer.encode(request('Short.').prompt)
    const long = tokenizer.encode(request('A much longer state that forces a lot of left padding on the short row.').prompt)
    const batch = leftPad([...short, ...long], [short.length, long.length])
    const dims = [2, batch.width]
    const lastLogits = async (positions: BigInt64Array): Promise<number[]> => {
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', batch.inputIds, dims),
        attention_mask: new ort.Tensor('int64', batch.attentionMask, dims),
        position_ids: new ort.Tensor('int64', positions, dims),
      }
      for (let l = 0; l < 2; l++) for (const kv of ['key', 'value']) feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [2, 4, 0, 8])
      const { logits } = await session.run(feeds)
      const v = logits!.dims[2]!
      return softmax([...tokenizer.letterIds(4)].map((id) => (logits!.data as Float32Array)[(batch.width - 1) * v + id]!))
    }
    const naive = BigInt64Array.from({ length: 2 * batch.width }, (_, i) => BigInt(i % batch.width))
    const [solo] = await reference(dir, [request('Short.')])
    expect(maxAbsDiff([await lastLogits(batch.positionIds)], [solo!])).toBeLessThan(1e-5)
    expect(maxAbsDiff([await lastLogits(naive)], [solo!])).toBeGreaterThan(1e-3)
    await session.release()
  })
})

describe('options and lifecycle', () => {
  const dir = makeModel({ tokenizer: 'bpe' })

  it('never puts more threads than cores, and describes itself', () => {
    const cores = availableParallelism()
    const s = scorer({ model: dir, workers: 64, threadsPerWorker: 64 })
    expect(s.settings.workers * s.settings.threadsPerWorker).toBeLessThanOrEqual(cores)
    const d = scorer({ model: dir })
    expect(d.settings.workers).toBe(Math.min(2, cores))
    expect(d.settings.workers * d.settings.threadsPerWorker).toBeLessThanOrEqual(cores)
    expect(d.description).toMatch(/^onnx .* \(\d workers? × \d+ threads?, batch ≤ 4, shared prefixes batched\)$/)
    expect(scorer({ model: dir, executionProviders: ['cuda'] }).settings.workers).toBe(1)
    expect(() => onnxScorer({ model: dir, batchSize: 0 })).toThrow(ConfigError)
  })

  it('uses the template option for the prompt text', async () => {
    const s = scorer({ model: dir, template: () => 'Fixed text.\nAnswer:' })
    const [a, b] = await s([request('one state'), request('a completely different state')])
    expect(maxAbsDiff([a!], [b!])).toBe(0)
  })

  it('close() lets a running call finish, then later calls reject; close is idempotent', async () => {
    const s = scorer({ model: dir, batchSize: 2 })
    const pending = s(sampleRequests())
    const closing = s.close()
    const vectors = await pending
    await closing
    expect(vectors).toHaveLength(sampleRequests().length)
    await expect(s([request('x')])).rejects.toThrow(ScorerError)
    await s.close()
  })

  it('close() before any call starts nothing and resolves', async () => {
    const s = onnxScorer({ model: dir })
    await s.close()
    expect(s.pool).toBeUndefined()
  })

  it('returns [] for no requests', async () => {
    expect(await scorer({ model: dir })([])).toEqual([])
  })

  it('tokenizes in the workers: the main thread never loads the tokenizer nor encodes a prompt', async () => {
    const { Tokenizer } = await import('@huggingface/tokenizers')
    const encode = vi.spyOn(Tokenizer.prototype, 'encode')
    try {
      const requests = sampleRequests()
      const vectors = await scorer({ model: dir })(requests)
      expect(vectors).toHaveLength(requests.length)
      expect(encode).not.toHaveBeenCalled()
      // The spy does see this thread's tokenizer: the same module instance the scorer would load.
      ;(await loadTokenizer(dir)).encode('Answer:')
      expect(encode).toHaveBeenCalled()
    } finally {
      encode.mockRestore()
    }
  })
})

describe('configuration errors name the path', () => {
  it('missing directory, model file or tokenizer.json (synchronous)', () => {
    const dir = makeModel()
    expect(() => onnxScorer({ model: join(dir, 'nope') })).toThrow(`${join(dir, 'nope')}: model directory not found`)
    writeFileSync(join(dir, 'model.onnx'), '')
    expect(() => onnxScorer({ model: dir })).toThrow(`${join(dir, 'model.onnx')}: the file is empty`)
    const noModel = makeModel({ nested: true })
    writeFileSync(join(noModel, 'onnx', 'model.onnx'), Buffer.alloc(0))
    expect(() => onnxScorer({ model: noModel })).toThrow(ConfigError)
    const missingTokenizer = makeModel()
    rmSync(join(missingTokenizer, 'tokenizer.json'))
    expect(() => onnxScorer({ model: missingTokenizer })).toThrow(`${join(missingTokenizer, 'tokenizer.json')}: missing`)
  })

  it('corrupt model file', async () => {
    const dir = makeModel()
    writeFileSync(join(dir, 'model.onnx'), 'this is not a protobuf')
    const s = scorer({ model: dir })
    await expect(s.ready()).rejects.toThrow(ConfigError)
    await expect(s.ready()).rejects.toThrow(`${join(dir, 'model.onnx')}: onnxruntime cannot load the model`)
    await expect(s([request('x')])).rejects.toThrow(ConfigError)
  })

  it('bad tokenizer.json', async () => {
    const dir = makeModel()
    writeFileSync(join(dir, 'tokenizer.json'), '{ not json')
    await expect(scorer({ model: dir }).ready()).rejects.toThrow(`${join(dir, 'tokenizer.json')}: not valid JSON`)
  })

  it('a model without logits, or without input_ids', async () => {
    const noLogits = makeModel({ decoder: { logitsName: 'scores' } })
    await expect(scorer({ model: noLogits }).ready()).rejects.toThrow(`${join(noLogits, 'model.onnx')}: the model has no "logits" output`)
    const noIds = makeModel({ decoder: { inputIdsName: 'tokens' } })
    await expect(scorer({ model: noIds }).ready()).rejects.toThrow(`${join(noIds, 'model.onnx')}: the model has no "input_ids" input`)
  })

  it('a letter that is not a single token', async () => {
    const dir = makeModel({ tokenizer: 'bpe', tokenizerOptions: { omitLetters: ['D'] } })
    const s = scorer({ model: dir })
    expect((await s([request('ok', SENTIMENT)]))[0]).toHaveLength(2) // A/B fine
    await expect(s([request('four options')])).rejects.toThrow(ConfigError)
    await expect(s([request('four options')])).rejects.toThrow(`${join(dir, 'tokenizer.json')}: the option letter "D" cannot be read after the prompt`)
    await expect(s([request('four options')])).rejects.toThrow('it is not a token of its own: the first token after the prompt is " "')
  })

  it('a tokenizer that emits ids beyond the model vocabulary', async () => {
    const dir = makeModel({ tokenizer: 'bpe', decoder: { vocab: 100 } })
    await expect(scorer({ model: dir }).ready()).rejects.toThrow(/tokenizer\.json: the tokenizer emits ids up to \d+ but .*model\.onnx has only 100 logits/)
  })
})
