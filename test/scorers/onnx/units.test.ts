// Pure pieces of the ONNX scorer: padding, readout, batching, model I/O planning.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { leftPad } from '../../../src/scorers/onnx/runtime/feeds.ts'
import { planBatches } from '../../../src/scorers/onnx/runtime/batching.ts'
import { ModelIoError, planInputs, type ValueInfo } from '../../../src/scorers/onnx/model/model-io.ts'
import { halfToFloat, letterProbabilities, logitAt, softmax } from '../../../src/scorers/onnx/readout/readout.ts'

describe('leftPad', () => {
  it('pads on the left and counts positions over real tokens only', () => {
    const batch = leftPad([5, 6, 7, 1, 2, 3, 4, 9], [3, 4, 1])
    expect(batch.width).toBe(4)
    expect([...batch.inputIds].map(Number)).toEqual([0, 5, 6, 7, 1, 2, 3, 4, 0, 0, 0, 9])
    expect([...batch.attentionMask].map(Number)).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1])
    expect([...batch.positionIds].map(Number)).toEqual([0, 0, 1, 2, 0, 1, 2, 3, 0, 0, 0, 0])
  })

  it('position_ids equal cumsum(mask) - 1 with pads at 0, for any lengths', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 6 }), (lengths) => {
        const total = lengths.reduce((a, b) => a + b, 0)
        const batch = leftPad(Array.from({ length: total }, (_, i) => i + 1), lengths)
        for (let r = 0; r < lengths.length; r++) {
          let sum = 0
          for (let c = 0; c < batch.width; c++) {
            const m = Number(batch.attentionMask[r * batch.width + c])
            sum += m
            expect(Number(batch.positionIds[r * batch.width + c])).toBe(m ? sum - 1 : 0)
          }
          expect(sum).toBe(lengths[r])
          // The last column is always a real token: the readout position.
          expect(Number(batch.attentionMask[r * batch.width + batch.width - 1])).toBe(1)
        }
      }),
    )
  })
})

describe('readout', () => {
  it('softmax is stable for large logits and sums to 1', () => {
    const p = softmax([1000, 1001, 999])
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    expect(p[1]).toBeGreaterThan(p[0]!)
    expect(p.every(Number.isFinite)).toBe(true)
  })

  it('reads the last position of each row at the letter ids', () => {
    // [2 rows, 2 positions, 4 vocab]
    const logits = new Float32Array([9, 9, 9, 9, /* row0 last */ 0, 1, 2, 3, 9, 9, 9, 9, /* row1 last */ 3, 2, 1, 0])
    expect(letterProbabilities(logits, [2, 2, 4], 0, [3, 1])).toEqual(softmax([3, 1]))
    expect(letterProbabilities(logits, [2, 2, 4], 1, [0, 2])).toEqual(softmax([3, 1]))
    // A last-position-only export: [rows, 1, vocab]
    expect(letterProbabilities(new Float32Array([0, 5, 0, 1]), [2, 1, 2], 1, [0, 1])).toEqual(softmax([0, 1]))
  })

  it('decodes float16 logits', () => {
    expect(halfToFloat(0x3c00)).toBe(1)
    expect(halfToFloat(0xc000)).toBe(-2)
    expect(halfToFloat(0x3555)).toBeCloseTo(0.33325, 4)
    expect(halfToFloat(0x7c00)).toBe(Infinity)
  })

  it('logitAt reads float16 logits as raw bits (Uint16Array) or as values (Float16Array, Node 24), float32 as is', () => {
    expect(logitAt(Uint16Array.of(0x3c00, 0xc000))(1)).toBe(-2)
    expect(logitAt(Float32Array.of(1.5, -2.25))(1)).toBe(-2.25)
    // Node 24 hands float16 tensors over as Float16Array values: 1.5 is a value, not the bits 0x0001.
    const Float16 = (globalThis as { Float16Array?: { of(...values: number[]): ArrayLike<number> } }).Float16Array
    if (Float16) expect(logitAt(Float16.of(1.5, -2.25))(0)).toBe(1.5)
  })
})

describe('planBatches', () => {
  const limits = { batchSize: 4, workers: 2, vocab: 100, maxLogitsBytes: 1e9, equalLengthsOnly: false }

  it('covers every request exactly once, shortest first, within the batch size', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), (lengths, batchSize) => {
        const batches = planBatches(lengths, { ...limits, batchSize })
        expect(batches.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i))
        for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(batchSize)
        const flat = batches.flat().map((i) => lengths[i]!)
        expect(flat).toEqual([...flat].sort((a, b) => a - b))
      }),
    )
  })

  it('splits a small call so every worker gets a batch', () => {
    expect(planBatches([10, 10, 10, 10], { ...limits, batchSize: 8 })).toEqual([[0, 1], [2, 3]])
  })

  it('caps rows so the logits tensor stays under the byte budget', () => {
    // 10 tokens x 100 vocab x 4 bytes = 4000 bytes per row; budget 8000 -> 2 rows.
    const batches = planBatches([10, 10, 10, 10, 10], { ...limits, workers: 1, batchSize: 8, maxLogitsBytes: 8000 })
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1])
  })

  it('never mixes lengths for a model without attention_mask', () => {
    const batches = planBatches([3, 5, 3, 5, 4], { ...limits, workers: 1, equalLengthsOnly: true })
    expect(batches).toEqual([[0, 2], [4], [1, 3]])
  })
})

describe('planInputs', () => {
  const t = (name: string, type = 'int64', shape: (number | string)[] = ['b', 's']): ValueInfo => ({ name, isTensor: true, type, shape })
  const logits = t('logits', 'float32', ['b', 's', 320])

  it('reads position_ids, mask, GQA past shapes and the vocabulary', () => {
    const plan = planInputs(
      [t('input_ids'), t('attention_mask'), t('position_ids'), t('past_key_values.0.key', 'float32', ['b', 2, 'p', 16]), t('past_key_values.0.value', 'float32', ['b', 2, 'p', 16]), t('use_cache_branch', 'bool', [1])],
      [logits, t('present.0.key', 'float32')],
      '/m/model.onnx',
    )
    expect(plan).toMatchObject({ attentionMask: true, positionIds: true, vocab: 320, useCacheBranch: 'use_cache_branch', logitsType: 'float32', prefixCache: false })
    expect(plan.past).toEqual([
      { name: 'past_key_values.0.key', type: 'float32', kvHeads: 2, headDim: 16, present: 'present.0.key' },
      { name: 'past_key_values.0.value', type: 'float32', kvHeads: 2, headDim: 16 },
    ])
  })

  it('can continue from a cache (prefix sharing) only with every present.* output and attention_mask', () => {
    const past = [t('past_key_values.0.key', 'float32', ['b', 2, 'p', 16]), t('past_key_values.0.value', 'float32', ['b', 2, 'p', 16])]
    const presents = [t('present.0.key', 'float32'), t('present.0.value', 'float32')]
    expect(planInputs([t('input_ids'), t('attention_mask'), ...past], [logits, ...presents], '/m').prefixCache).toBe(true)
    expect(planInputs([t('input_ids'), t('attention_mask'), ...past], [logits, presents[0]!], '/m').prefixCache).toBe(false)
    expect(planInputs([t('input_ids'), ...past], [logits, ...presents], '/m').prefixCache).toBe(false)
    expect(planInputs([t('input_ids'), t('attention_mask')], [logits], '/m').prefixCache).toBe(false)
  })

  it('refuses models without input_ids or logits, and inputs it cannot fill, naming the file', () => {
    expect(() => planInputs([t('tokens'), t('attention_mask')], [logits], '/m/model.onnx')).toThrow(/\/m\/model\.onnx: the model has no "input_ids" input \(its inputs: tokens, attention_mask\)/)
    expect(() => planInputs([t('input_ids')], [t('scores', 'float32')], '/m/model.onnx')).toThrow(/\/m\/model\.onnx: the model has no "logits" output \(its outputs: scores\)/)
    expect(() => planInputs([t('input_ids'), t('token_type_ids')], [logits], '/m/model.onnx')).toThrow(/input "token_type_ids" the scorer cannot fill/)
    expect(() => planInputs([t('input_ids'), t('past_key_values.0.key', 'float32', ['b', 'h', 'p', 'd'])], [logits], '/m/x.onnx')).toThrow(ModelIoError)
  })
})
