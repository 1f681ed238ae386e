// `sceptic quantize-model`: MatMulNBits weight blocks or int8 MatMulIntegerToFloat, LM head and
// embeddings in float32; batch-invariant (batching and prefix sharing stay exact), close to fp32.
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { describe, expect, it } from 'vitest'
import { quantizeModel } from '../../../../src/scorers/onnx/transform/quantize.ts'
import { optimizeModel } from '../../../../src/scorers/onnx/transform/optimize.ts'
import { packNBits } from '../../../../src/scorers/onnx/transform/nbits.ts'
import { quantizeColumns } from '../../../../src/scorers/onnx/transform/integer-matmul.ts'
import { sceptic } from '../../../helpers/run.ts'
import { exactInt8Products, makeModel, maxAbsDiff, sampleRequests, scorerFactory, tempDir } from '../helpers.ts'

const scorer = scorerFactory()

/**
 * The quantized model in `out` scores the same at batch 8 with prefix sharing as one prompt
 * per run (no per-tensor activation fallback), and differs from the fp32 model in `dir` by
 * more than 0 and less than `maxDelta`.
 */
async function expectBatchInvariantAndNearFp32(out: string, dir: string, maxDelta: number, batchBound = 1e-5): Promise<void> {
  const requests = sampleRequests()
  const one = await scorer({ model: out, workers: 1, batchSize: 1, prefixSharing: 'off' })(requests)
  const eight = scorer({ model: out, workers: 1, batchSize: 8 })
  expect(eight.settings.perTensorActivations).toBeUndefined()
  expect(maxAbsDiff(await eight(requests), one)).toBeLessThan(batchBound)
  const fp32 = await scorer({ model: dir, workers: 1, batchSize: 8 })(requests)
  const delta = maxAbsDiff(one, fp32)
  expect(delta).toBeGreaterThan(0)
  expect(delta).toBeLessThan(maxDelta)
}
const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }

describe('packNBits', () => {
  it('dequantizes to within half a step of every weight, 4 and 8 bits, padding a short last block', () => {
    const K = 40
    const N = 3
    const w = Float32Array.from({ length: K * N }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 5)))
    for (const bits of [4, 8] as const) {
      const { packed, scales, blocks } = packNBits(w, K, N, bits, 16)
      expect(blocks).toBe(3)
      const zero = 2 ** (bits - 1)
      for (let n = 0; n < N; n++)
        for (let k = 0; k < K; k++) {
          const b = Math.floor(k / 16)
          const i = k % 16
          const base = (n * blocks + b) * ((16 * bits) / 8)
          const q = bits === 8 ? packed[base + i]! : (packed[base + (i >> 1)]! >> (i & 1 ? 4 : 0)) & 15
          const scale = scales[n * blocks + b]!
          expect(Math.abs((q - zero) * scale - w[k * N + n]!)).toBeLessThanOrEqual(scale / 2 + 1e-6)
        }
    }
  })
})

describe('quantizeColumns', () => {
  it('7-bit weights per column: within [-64, 64], each column reaching ±64, within half a step of every weight', () => {
    const K = 40
    const N = 3
    const w = Float32Array.from({ length: K * N }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 5)))
    const { values, scales } = quantizeColumns(w, K, N)
    for (let n = 0; n < N; n++) {
      let largest = 0
      for (let k = 0; k < K; k++) {
        const q = values[k * N + n]!
        largest = Math.max(largest, Math.abs(q))
        expect(Math.abs(q * scales[n]! - w[k * N + n]!)).toBeLessThanOrEqual(scales[n]! / 2 + 1e-6)
      }
      // 255 × 64 × 2 = 32640: ORT's int16 pair sums (VPMADDUBSW) hold it on CPUs without VNNI.
      expect(largest).toBe(64)
    }
  })
})

/** The values of `tensor` (int8, raw or in external data next to `modelDir`'s model.onnx). */
function int8Values(tensor: OnnxNamespace.ITensorProto, modelDir: string): Int8Array {
  if (tensor.rawData?.length) return new Int8Array(tensor.rawData.buffer, tensor.rawData.byteOffset, tensor.rawData.byteLength)
  const entry = (key: string) => tensor.externalData!.find((e) => e.key === key)?.value
  const bytes = readFileSync(join(modelDir, entry('location')!))
  const offset = Number(entry('offset') ?? 0)
  return new Int8Array(bytes.buffer, bytes.byteOffset + offset, Number(entry('length')))
}

describe('quantizeModel', () => {
  const dir = makeModel({ tokenizer: 'bpe', decoder: { hidden: 64, layers: 2, heads: 4 }, externalDataMinBytes: 4096 })

  it.each([4, 8] as const)('%i bits (default accuracy level 4, int8 activations per row): batch 1 == batch 8 with prefix sharing, close to fp32, head and embeddings kept', async (bits) => {
    const out = join(tempDir(), `q${bits}`)
    const result = await quantizeModel(dir, out, { bits })
    expect(result.quantized).toBe(2 * 4) // per layer: qkv, out, two MLP matrices
    expect(result.keptHead).toEqual(['lm_head'])
    expect(existsSync(join(out, 'tokenizer.json'))).toBe(true)
    const graph = onnx.ModelProto.decode(readFileSync(join(out, 'model.onnx'))).graph!
    expect(graph.node!.filter((n) => n.opType === 'MatMulNBits')).toHaveLength(8)
    expect(graph.node!.filter((n) => n.opType === 'MatMul').map((n) => n.input![1])).toEqual(expect.arrayContaining(['lm_head']))
    expect(graph.initializer!.find((t) => t.name === 'wte')!.dataType).toBe(onnx.TensorProto.DataType.FLOAT)
    // Random weights are the worst case for quantization; 8 bits is far closer than 4. 4 bits
    // at level 4 on a CPU without VNNI: the weaker bound of docs/onnx-models.md, "Which CPU".
    const batchBound = bits === 4 && !(await exactInt8Products()) ? 0.01 : 1e-5
    await expectBatchInvariantAndNearFp32(out, dir, bits === 8 ? 0.05 : 0.5, batchBound)
  })

  it.each([4, 8] as const)('%i bits, accuracy level 0: equals the fp32 graph carrying the dequantized weights (the packing is what ORT reads)', async (bits) => {
    const plain = makeModel({ tokenizer: 'bpe', decoder: { hidden: 64, layers: 2, heads: 4 } }, 'plain')
    const out = join(tempDir(), `q${bits}`)
    await quantizeModel(plain, out, { bits, accuracyLevel: 0 })
    const proto = onnx.ModelProto.decode(readFileSync(join(plain, 'model.onnx')))
    for (const tensor of proto.graph!.initializer!) {
      if (!/^l\d\.(wqkv|wo|w1|w2)$/.test(tensor.name!)) continue
      const [K, N] = tensor.dims!.map(Number) as [number, number]
      const raw = tensor.rawData!
      const w = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength))
      const { packed, scales, blocks } = packNBits(w, K, N, bits, 32)
      const blob = (32 * bits) / 8
      const back = new Float32Array(K * N)
      for (let n = 0; n < N; n++)
        for (let k = 0; k < K; k++) {
          const [b, i] = [Math.floor(k / 32), k % 32]
          const at = (n * blocks + b) * blob
          const q = bits === 8 ? packed[at + i]! : (packed[at + (i >> 1)]! >> (i & 1 ? 4 : 0)) & 15
          back[k * N + n] = (q - 2 ** (bits - 1)) * scales[n * blocks + b]!
        }
      tensor.rawData = new Uint8Array(back.buffer)
    }
    const dequantized = join(tempDir(), 'dequantized')
    cpSync(plain, dequantized, { recursive: true })
    writeFileSync(join(dequantized, 'model.onnx'), onnx.ModelProto.encode(proto).finish())
    const requests = sampleRequests()
    const a = await scorer({ model: out, workers: 1 })(requests)
    const b = await scorer({ model: dequantized, workers: 1 })(requests)
    expect(maxAbsDiff(a, b)).toBeLessThan(1e-4)
  })

  it('int8 format (MatMulIntegerToFloat, rows and columns): batch 1 == batch 8 with prefix sharing, close to fp32, head and embeddings kept', async () => {
    const out = join(tempDir(), 'int8')
    const result = await quantizeModel(dir, out, { format: 'int8' })
    expect(result.quantized).toBe(2 * 4)
    expect(result.keptHead).toEqual(['lm_head'])
    const graph = onnx.ModelProto.decode(readFileSync(join(out, 'model.onnx'))).graph!
    expect(graph.node!.filter((n) => n.opType === 'MatMulIntegerToFloat')).toHaveLength(8)
    expect(graph.node!.filter((n) => n.opType === 'QuantizeLinear')).toHaveLength(8)
    expect(graph.node!.filter((n) => n.opType === 'MatMul').map((n) => n.input![1])).toEqual(expect.arrayContaining(['lm_head']))
    expect(graph.initializer!.find((t) => t.name === 'wte')!.dataType).toBe(onnx.TensorProto.DataType.FLOAT)
    // ORT's U8S8 product: int8 weights on zero point 0 (no weight zero point), 7 bits, so CPUs without VNNI stay exact and fast.
    for (const node of graph.node!.filter((n) => n.opType === 'MatMulIntegerToFloat')) {
      expect(node.input).toHaveLength(5)
      const weight = graph.initializer!.find((t) => t.name === node.input![1])!
      expect(weight.dataType).toBe(onnx.TensorProto.DataType.INT8)
      const values = int8Values(weight, out)
      expect(Math.max(...values.map((v) => Math.abs(v)))).toBe(64)
    }
    await expectBatchInvariantAndNearFp32(out, dir, 0.05)
    await expect(quantizeModel(out, join(tempDir(), 'again'), { format: 'int8' })).rejects.toThrow('it is already quantized')
  })

  it('refuses a quantized model, the same directory, bad bits; the CLI prints one line', async () => {
    const out = join(tempDir(), 'q')
    await quantizeModel(dir, out)
    await expect(quantizeModel(out, join(tempDir(), 'again'))).rejects.toThrow('quantize-model cannot rewrite this graph: it is already quantized')
    await expect(quantizeModel(dir, dir)).rejects.toThrow('the output directory must differ from the input')
    const ok = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'cli'), '--bits', '8'])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/^wrote .*model\.onnx: 8 MatMuls → 8-bit MatMulNBits, LM head kept float32/)
    const bad = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'x'), '--bits', '3'])
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringContaining('--bits must be 4 or 8, got "3"')])
    const level = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'y'), '--accuracy-level', '2'])
    expect(level.code).toBe(2)
    expect(level.stderr.trim().split('\n')).toEqual([expect.stringContaining('--accuracy-level must be 4')])
    const int8 = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'cli-int8'), '--format', 'int8'])
    expect(int8.code).toBe(0)
    expect(int8.stdout).toMatch(/^wrote .*model\.onnx: 8 MatMuls → int8 MatMulInteger, LM head kept float32/)
    const format = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'z'), '--format', 'int4'])
    expect(format.code).toBe(2)
    expect(format.stderr.trim().split('\n')).toEqual([expect.stringContaining('--format must be nbits (MatMulNBits, default) or int8 (MatMulInteger), got "int4"')])
  })
})

describe('quantize-model output through optimize-model (last position, letter rows of the float32 head)', () => {
  const dir = makeModel({ tokenizer: 'bpe', decoder: { hidden: 64, layers: 2, heads: 4, vocab: 2048 }, externalDataMinBytes: 4096 })

  it.each([
    ['nbits 4-bit', { format: 'nbits', bits: 4 }],
    ['nbits 8-bit', { format: 'nbits', bits: 8 }],
    ['int8', { format: 'int8' }],
  ] as const)('%s: the same letter probabilities as the quantized model alone (within 1e-5), batch 1 and with prefix sharing', async (name, options) => {
    const quantized = join(tempDir(), `q-${name.replace(/\W/g, '')}`)
    await quantizeModel(dir, quantized, options)
    const optimized = join(tempDir(), 'optimized')
    const result = await optimizeModel(quantized, optimized)
    expect(result.vocab).toBe(2048)
    expect(result.externalFiles).toEqual(['model.onnx_data'])
    const requests = sampleRequests()
    const alone = await scorer({ model: quantized, workers: 1, batchSize: 1, prefixSharing: 'off', readout: 'full' })(requests)
    const one = scorer({ model: optimized, workers: 1, batchSize: 1, prefixSharing: 'off' })
    expect((await one.ready()).plan.vocab).toBe(40)
    expect(one.settings.optimizedReadout).toBe(true)
    expect(maxAbsDiff(await one(requests), alone)).toBeLessThan(1e-5)
    const shared = scorer({ model: optimized, workers: 1, batchSize: 8 })
    expect(shared.settings.perTensorActivations).toBeUndefined()
    expect(shared.settings.prefixSharing).toBe('batched')
    expect(maxAbsDiff(await shared(requests), alone)).toBeLessThan(1e-5)
  })
})
