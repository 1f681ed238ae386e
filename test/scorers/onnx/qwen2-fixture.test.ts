// The Qwen2 fixture decoder (architecture: 'qwen2'): a plain-JS forward pass written from
// Hugging Face's Qwen2 formulas (RMSNorm, rotate-half RoPE at base 1e6, GQA, q/k/v biases,
// SwiGLU, tied head) gives onnxruntime's logits, so a RoPE both runtimes got wrong would
// fail; transformers.js loads the directory by its config.json (model_type qwen2) and gives
// onnxruntime's logits on a left-padded batch; onnxScorer's letter probabilities equal
// transformers.js's with and without a KV-cached prefix, at batch 1 and 8.
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers'
import * as ort from 'onnxruntime-node'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { beforeAll, describe, expect, it } from 'vitest'
import { LETTERS } from '../../../src/core/decisions/schema.ts'
import type { ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { logitAt, softmax } from '../../../src/scorers/onnx/readout/readout.ts'
import { EXACT_INTEGER_PRODUCTS } from '../../../src/scorers/onnx/runtime/integer-precision.ts'
import { letterContinuation } from '../../../src/scorers/prompt/letter-readout.ts'
import { buildDecoder, buildModelFiles, makeVariant, qwen2Config, qwen2Forward, TINY_EXAMPLE, writeModelDir, type DecoderOptions, type Qwen2Shape } from '../../../scripts/onnx-fixture/index.ts'
import { maxAbsDiff, sampleRequests, scorerFactory, tempDir } from './helpers.ts'

const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }
const scorer = scorerFactory()
env.allowRemoteModels = false
env.useFSCache = false
env.useBrowserCache = false

const DECODER: DecoderOptions = { architecture: 'qwen2', hidden: 64, layers: 2, heads: 4, kvHeads: 2, ffn: 128, seed: 11, headScale: 4 }

/** The initializers of a generated model, by name. */
function weights(model: Uint8Array): Map<string, { dims: number[]; data: Float32Array }> {
  const graph = onnx.ModelProto.decode(model).graph!
  const out = new Map<string, { dims: number[]; data: Float32Array }>()
  for (const t of graph.initializer ?? []) {
    if (t.dataType !== onnx.TensorProto.DataType.FLOAT) continue
    const raw = t.rawData!
    out.set(t.name!, { dims: t.dims!.map(Number), data: new Float32Array(new Uint8Array(raw).buffer) })
  }
  return out
}

/** Hugging Face Qwen2ForCausalLM in plain JS (float64), on a generated model's weights: logits at every position of one sequence. */
function qwen2Reference(model: Uint8Array, o: Qwen2Shape, ids: number[], positions: number[]): number[][] {
  const w = weights(model)
  return qwen2Forward((name) => w.get(name)!.data, o, ids, positions)
}

async function ortLogits(model: Uint8Array, ids: number[][], mask: number[][], positions?: number[][]): Promise<{ dims: readonly number[]; data: Float32Array }> {
  // The scorer's integer precision: without it ORT's int8 (U8S8) products saturate on CPUs without VNNI.
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, extra: { session: EXACT_INTEGER_PRODUCTS } })
  try {
    const B = ids.length
    const tensor = (rows: number[][]) => new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [B, rows[0]!.length])
    const feeds: Record<string, ort.Tensor> = { input_ids: tensor(ids), attention_mask: tensor(mask) }
    if (positions) feeds.position_ids = tensor(positions)
    for (const m of session.inputMetadata)
      if (m.name.startsWith('past_key_values.') && m.isTensor) {
        const dims = [B, m.shape[1] as number, 0, m.shape[3] as number]
        // fp16 exports take float16 past inputs.
        feeds[m.name] = m.type === 'float16' ? new ort.Tensor('float16', new Uint16Array(0), dims) : new ort.Tensor('float32', new Float32Array(0), dims)
      }
    const { logits } = await session.run(feeds)
    return { dims: logits!.dims, data: logits!.data as Float32Array }
  } finally {
    await session.release()
  }
}

describe('the graph against a plain-JS Qwen2 forward pass', () => {
  const shape = { hidden: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48 }
  const options: DecoderOptions = { ...shape, architecture: 'qwen2', vocab: 50, seed: 4, headScale: 3 }
  const model = buildDecoder(options)
  const ids = [3, 17, 41, 8, 29, 0]

  it('logits at positions 1000-1005 (RoPE at base 1e6, RMSNorm at eps 1e-6) within 1e-4; a base-1e4 RoPE is caught', async () => {
    const positions = ids.map((_, i) => 1000 + i)
    const got = await ortLogits(model, [ids], [ids.map(() => 1)], [positions])
    const expected = qwen2Reference(model, { ...shape, theta: 1e6, eps: 1e-6 }, ids, positions)
    const diff = (reference: number[][]) => Math.max(...reference.flatMap((row, t) => row.map((v, j) => Math.abs(v - got.data[t * 50 + j]!))))
    expect(diff(expected)).toBeLessThan(1e-4)
    // The reference is sensitive to RoPE: another base (or no rotation at this position) moves the logits.
    expect(diff(qwen2Reference(model, { ...shape, theta: 1e4, eps: 1e-6 }, ids, positions))).toBeGreaterThan(1e-2)
    expect(Math.max(...expected.flat().map(Math.abs))).toBeGreaterThan(1)
  })

  it('without a position_ids input, left padding: positions come from the mask', async () => {
    const derived = buildDecoder({ ...options, positionIds: false })
    const got = await ortLogits(derived, [[0, 0, ...ids]], [[0, 0, ...ids.map(() => 1)]])
    const expected = qwen2Reference(model, { ...shape, theta: 1e6, eps: 1e-6 }, ids, ids.map((_, i) => i))
    const diff = Math.max(...expected.flatMap((row, t) => row.map((v, j) => Math.abs(v - got.data[(t + 2) * 50 + j]!))))
    expect(diff).toBeLessThan(1e-4)
  })

  it('the variants exports ship (fp16, int8, q4) load and stay close to fp32', async () => {
    const ones = ids.map(() => 1)
    const positions = ids.map((_, i) => i)
    const fp32 = (await ortLogits(model, [ids], [ones], [positions])).data
    const scale = Math.max(...fp32.map(Math.abs))
    for (const [variant, tolerance] of [['fp16', 0.003], ['int8', 0.05], ['q4', 0.25]] as const) {
      const got = (await ortLogits(makeVariant(model, variant), [ids], [ones], [positions])).data
      // float16 logits: raw bits on Node 20 and 22, a Float16Array of values on Node 24.
      const at = logitAt(got as ArrayLike<number>)
      const half = Float32Array.from(fp32, (_, i) => at(i))
      const diff = Math.max(...fp32.map((v, i) => Math.abs(v - half[i]!)))
      expect(diff / scale, variant).toBeLessThan(tolerance)
      expect(diff, variant).toBeGreaterThan(0) // the variant really changed the arithmetic
    }
  })

  it('the tied head stores the embedding once; the GPT-2 default is unchanged', () => {
    const graph = onnx.ModelProto.decode(model).graph!
    const embedding = (graph.initializer ?? []).filter((t) => t.dims!.map(Number).join() === '50,32')
    expect(embedding.map((t) => t.name)).toEqual(['model.embed_tokens.weight'])
    expect((graph.node ?? []).filter((n) => n.input!.includes('model.embed_tokens.weight')).map((n) => n.opType).sort()).toEqual(['Gather', 'Transpose'])
    // The example model in the repository is the default architecture's output: same bytes.
    const example = readFileSync(new URL('../../../examples/models/tiny/model.onnx', import.meta.url))
    expect(Buffer.from(buildModelFiles(TINY_EXAMPLE).model).equals(example)).toBe(true)
  })
})

describe('transformers.js loads it as qwen2', () => {
  let dir: string
  beforeAll(() => {
    dir = writeModelDir(join(tempDir('sceptic-qwen2-'), 'qwen2'), { tokenizer: 'bpe', decoder: DECODER, nested: true })
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ pad_token: '<|endoftext|>' }))
  })

  it('config.json carries the Hugging Face Qwen2 fields', () => {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
    expect(config).toMatchObject({ model_type: 'qwen2', hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 128, rms_norm_eps: 1e-6, rope_theta: 1e6, tie_word_embeddings: true })
    expect(config).toEqual(qwen2Config({ ...DECODER, vocab: config.vocab_size }))
  })

  it('transformers.js and onnxruntime give the same logits on a left-padded batch; onnxScorer the same letter probabilities', async () => {
    env.localModelPath = dirname(dir) + '/'
    const tokenizer = await AutoTokenizer.from_pretrained(basename(dir))
    tokenizer.padding_side = 'left'
    const model = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype: 'fp32', device: 'cpu' })
    try {
      const list: ScoreRequest[] = sampleRequests().slice(0, 10)
      const inputs = tokenizer([list[0]!, list[4]!, list[5]!].map((r) => r.prompt), { padding: true })
      const { logits } = (await model(inputs)) as { logits: { dims: number[]; data: Float32Array } }
      const ids = toRows(inputs.input_ids)
      const mask = toRows(inputs.attention_mask)
      const positions = mask.map((row) => {
        let seen = -1
        return row.map((m) => (m ? ++seen : 1))
      })
      const direct = await ortLogits(readFileSync(join(dir, 'onnx', 'model.onnx')), ids, mask, positions)
      const [B, S, V] = logits.dims as [number, number, number]
      let max = 0
      for (let b = 0; b < B; b++) for (let s = 0; s < S; s++) if (mask[b]![s]) for (let v = 0; v < V; v++) max = Math.max(max, Math.abs(logits.data[(b * S + s) * V + v]! - direct.data[(b * S + s) * V + v]!))
      expect(max).toBeLessThan(1e-4)
      expect(ids.some((row) => row[0] !== ids[0]![0])).toBe(true) // the batch really is padded

      // The oracle: each prompt alone, last-position logits at each letter's token after the prompt.
      const expected: number[][] = []
      for (const r of list) {
        const promptIds = tokenizer.encode(r.prompt)
        const letterIds = r.criterion.options.map((_, i) => tokenizer.encode(r.prompt + letterContinuation(r.prompt, LETTERS[i]!))[promptIds.length]!)
        const out = (await model(tokenizer(r.prompt))) as { logits: { dims: number[]; data: Float32Array } }
        const [, n, vocab] = out.logits.dims as [number, number, number]
        expected.push(softmax(letterIds.map((id) => out.logits.data[(n - 1) * vocab + id]!)))
      }
      expect(Math.max(...expected.map((row) => Math.max(...row)))).toBeGreaterThan(0.5) // real margins, not uniform
      for (const [batchSize, prefixSharing] of [[1, 'off'], [8, 'off'], [8, 'batched'], [1, 'sequential']] as const) {
        const s = scorer({ model: dir, workers: 1, threadsPerWorker: 1, batchSize, prefixSharing })
        expect(maxAbsDiff(await s(list), expected), `batch ${batchSize}, prefix ${prefixSharing}`).toBeLessThan(1e-4)
        if (prefixSharing !== 'off') expect(s.stats.sharedGroups).toBeGreaterThan(0)
      }
    } finally {
      await model.dispose()
    }
  })
})

function toRows(tensor: { dims: readonly number[]; data: ArrayLike<bigint | number> }): number[][] {
  const [rows, cols] = tensor.dims as [number, number]
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => Number(tensor.data[r * cols + c]!)))
}

