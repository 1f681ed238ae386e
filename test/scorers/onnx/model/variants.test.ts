// Model variants (dtype) named like transformers.js, fp16 I/O, external data, and
// per-tensor activation quantization scored one prompt per run: batch 1 == batch 8 for
// every dtype. Variants are made by the project's generator (fixture/variants.ts).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import { describe, expect, it } from 'vitest'
import { ConfigError, onnxScorer } from '../../../../dist/onnx/index.js'
import { leftPad } from '../../../../src/scorers/onnx/runtime/feeds.ts'
import { softmax } from '../../../../src/scorers/onnx/readout/readout.ts'
import { loadTokenizer } from '../../../../src/scorers/onnx/prompt/tokenizer.ts'
import { dtypeFile, selectVariant } from '../../../../src/scorers/onnx/model/dtype.ts'
import { ConfigError as SourceConfigError } from '../../../../src/core/support/errors.ts'
import { perTensorActivationOp } from '../../../../src/scorers/onnx/transform/activation-quant.ts'
import { floatToHalf } from '../../../../scripts/onnx-fixture/index.ts'
import { halfToFloat } from '../../../../src/scorers/onnx/readout/readout.ts'
import { makeModel, maxAbsDiff, request, sampleRequests, scorerFactory, tempDir } from '../helpers.ts'

const scorer = scorerFactory()

describe('dtype → file, as transformers.js names them', () => {
  const dirWith = (files: string[], sub = ''): string => {
    const dir = tempDir()
    mkdirSync(join(dir, sub), { recursive: true })
    for (const file of files) writeFileSync(join(dir, sub, file), 'x')
    return dir
  }

  it('maps q8 to model_quantized.onnx and the rest to model_{dtype}.onnx', () => {
    expect(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16'].map((d) => dtypeFile(d as never))).toEqual([
      'model.onnx',
      'model_fp16.onnx',
      'model_quantized.onnx',
      'model_int8.onnx',
      'model_uint8.onnx',
      'model_q4.onnx',
      'model_q4f16.onnx',
    ])
  })

  it('defaults to fp32 when present, else the single variant; in onnx/ too', () => {
    const all = dirWith(['model.onnx', 'model_fp16.onnx', 'model_q4.onnx'], 'onnx')
    expect(selectVariant(all, undefined)).toEqual({ dtype: 'fp32', path: join(all, 'onnx', 'model.onnx') })
    expect(selectVariant(all, 'q4')!.path).toBe(join(all, 'onnx', 'model_q4.onnx'))
    const single = dirWith(['model_q4f16.onnx'], 'onnx')
    expect(selectVariant(single, undefined)!.dtype).toBe('q4f16')
    expect(selectVariant(dirWith([]), undefined)).toBeUndefined()
  })

  it('a missing variant, or several without fp32, is a ConfigError listing what was found', () => {
    const dir = dirWith(['model_fp16.onnx', 'model_quantized.onnx'], 'onnx')
    expect(() => selectVariant(dir, 'int8')).toThrow(SourceConfigError)
    expect(() => selectVariant(dir, 'int8')).toThrow(`${dir}: no int8 variant (model_int8.onnx in the directory or onnx/); variants found: fp16 (onnx/model_fp16.onnx), q8 (onnx/model_quantized.onnx)`)
    expect(() => selectVariant(dir, undefined)).toThrow('no fp32 model.onnx and several variants (fp16 (onnx/model_fp16.onnx), q8 (onnx/model_quantized.onnx)); choose one with dtype (CLI --dtype)')
  })

  it('onnxScorer refuses an unknown dtype and reports the chosen one', () => {
    const dir = makeModel({ variants: ['fp16'] })
    expect(() => onnxScorer({ model: dir, dtype: 'fp8' as never })).toThrow('onnxScorer: dtype must be one of fp32, fp16, q8, int8, uint8, q4, q4f16, got "fp8"')
    const s = scorer({ model: dir, dtype: 'fp16' })
    expect(s.settings.dtype).toBe('fp16')
    expect(s.settings.modelPath).toBe(join(dir, 'model_fp16.onnx'))
    expect(s.description).toMatch(/^onnx .* \(fp16; /)
    expect(scorer({ model: dir }).settings.dtype).toBe('fp32')
  })
})

describe('floatToHalf', () => {
  it('round-trips through halfToFloat within half precision, with rounding to nearest even', () => {
    for (const v of [0, 1, -2.5, 0.1, 65504, 1e-5, -3.14159, 6e-8]) expect(Math.abs(halfToFloat(floatToHalf(v)) - v)).toBeLessThanOrEqual(Math.abs(v) * 2 ** -11 + 6e-8)
    expect(floatToHalf(1 + 2 ** -11)).toBe(0x3c00) // tie → even
    expect(floatToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02)
    expect(floatToHalf(1e6)).toBe(0x7c00)
  })
})

const DTYPES = ['fp32', 'fp16', 'int8', 'uint8', 'q4'] as const

describe('every dtype: batch 1 equals batch 8', () => {
  const dir = makeModel({ variants: ['fp16', 'int8', 'uint8', 'q4'], externalDataMinBytes: 1024 })
  const requests = sampleRequests()

  it.each(DTYPES)('%s', async (dtype) => {
    const one = await scorer({ model: dir, dtype, workers: 1, batchSize: 1, prefixSharing: 'off' })(requests)
    const eight = scorer({ model: dir, dtype, workers: 1, batchSize: 8 })
    const batched = await eight(requests)
    // fp16 exports return the prefix cache in fp16: shared prefixes read it rounded (≈1e-3 relative).
    expect(maxAbsDiff(batched, one)).toBeLessThan(dtype === 'fp16' ? 2e-3 : 1e-5)
    const perTensor = dtype === 'int8' || dtype === 'uint8'
    expect(eight.settings.perTensorActivations).toBe(perTensor ? 'DynamicQuantizeLinear' : undefined)
    expect(eight.settings.batchSize).toBe(perTensor ? 1 : 8)
    if (perTensor) expect(eight.description).toContain('one prompt per run: the graph quantizes activations per tensor (DynamicQuantizeLinear)')
    // A variant really differs from fp32 (it is not the same file under another name).
    const fp32 = await scorer({ model: dir, workers: 1, batchSize: 1 })(requests)
    if (dtype !== 'fp32') expect(maxAbsDiff(one, fp32)).toBeGreaterThan(1e-6)
    // ...and stays near it: float16 logits read as numbers whichever array Node hands them over in
    // (raw bits on Node 20 and 22, a Float16Array on 24, where reading values as bits gave noise).
    if (dtype === 'fp16') expect(maxAbsDiff(one, fp32)).toBeLessThan(2e-2)
  })

  it('why: the same int8 graph batched with padding gives other probabilities than alone', async () => {
    const tokenizer = await loadTokenizer(dir)
    const session = await ort.InferenceSession.create(join(dir, 'model_int8.onnx'))
    const short = tokenizer.encode(request('Short.').prompt)
    const long = tokenizer.encode(request('A much longer state that forces a lot of left padding on the short row, with numbers 12 and 2024.').prompt)
    const letters = [...tokenizer.letterIds(4)]
    const run = async (rows: Int32Array[]): Promise<number[]> => {
      const batch = leftPad(rows.flatMap((r) => [...r]), rows.map((r) => r.length))
      const dims = [rows.length, batch.width]
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', batch.inputIds, dims),
        attention_mask: new ort.Tensor('int64', batch.attentionMask, dims),
        position_ids: new ort.Tensor('int64', batch.positionIds, dims),
      }
      for (let l = 0; l < 2; l++) for (const kv of ['key', 'value']) feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows.length, 4, 0, 8])
      const { logits } = await session.run(feeds)
      const v = logits!.dims[2]!
      return softmax(letters.map((id) => (logits!.data as Float32Array)[(batch.width - 1) * v + id]!))
    }
    const alone = await run([short])
    const together = await run([short, long])
    await session.release()
    expect(maxAbsDiff([together], [alone])).toBeGreaterThan(1e-4)
    expect(perTensorActivationOp(join(dir, 'model.onnx'))).toBeUndefined()
  })
})
