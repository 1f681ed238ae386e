// config.json drives the cache shapes (layers, KV heads, head_dim); the graph is the
// fallback; a contradiction is a ConfigError naming both files.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readConfigShape } from '../../../../src/scorers/onnx/model/model-config.ts'
import { planInputs, type ValueInfo } from '../../../../src/scorers/onnx/model/model-io.ts'
import { makeModel, maxAbsDiff, sampleRequests, scorerFactory, tempDir } from '../helpers.ts'

const scorer = scorerFactory()
const t = (name: string, shape: (number | string)[] = ['b', 's'], type = 'int64'): ValueInfo => ({ name, isTensor: true, type, shape })

describe('readConfigShape', () => {
  const write = (config: unknown): string => {
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    return dir
  }

  it('reads layers, KV heads and head_dim, with the usual fallbacks and text_config', () => {
    expect(readConfigShape(write({ num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128, hidden_size: 1024 }))).toMatchObject({ layers: 28, kvHeads: 8, headDim: 128 })
    expect(readConfigShape(write({ n_layer: 12, n_head: 12, n_embd: 768 }))).toMatchObject({ layers: 12, kvHeads: 12, headDim: 64 })
    expect(readConfigShape(write({ model_type: 'gemma3', text_config: { num_hidden_layers: 26, num_attention_heads: 4, num_key_value_heads: 1, head_dim: 256 } }))).toMatchObject({ layers: 26, kvHeads: 1, headDim: 256 })
    expect(readConfigShape(write({}))).toEqual({ path: expect.stringContaining('config.json') })
    expect(readConfigShape(tempDir())).toBeUndefined()
  })

  it('a config.json that is not JSON is a ConfigError naming it', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'config.json'), '{')
    expect(() => readConfigShape(dir)).toThrow(`${join(dir, 'config.json')}: not valid JSON`)
  })
})

describe('planInputs with config shapes', () => {
  const logits = t('logits', ['b', 's', 50], 'float32')
  const past = (heads: number | string, dim: number | string) =>
    ['key', 'value'].map((kv) => t(`past_key_values.0.${kv}`, ['b', heads, 'p', dim], 'float32'))
  const config = { path: '/m/config.json', layers: 1, kvHeads: 2, headDim: 8 }

  it('fills symbolic dims from the config; agrees with fixed ones', () => {
    expect(planInputs([t('input_ids'), ...past('h', 'd')], [logits], '/m/model.onnx', config).past[0]).toMatchObject({ kvHeads: 2, headDim: 8 })
    expect(planInputs([t('input_ids'), ...past(2, 8)], [logits], '/m/model.onnx', config).past[0]).toMatchObject({ kvHeads: 2, headDim: 8 })
    expect(() => planInputs([t('input_ids'), ...past('h', 'd')], [logits], '/m/model.onnx')).toThrow('with fixed kv_heads and head_dim expected')
  })

  it('a contradiction names both files and both values', () => {
    expect(() => planInputs([t('input_ids'), ...past(4, 8)], [logits], '/m/model.onnx', config)).toThrow(
      '/m/model.onnx: input "past_key_values.0.key" has kv_heads 4, but /m/config.json says num_key_value_heads 2; the config and the model do not belong together',
    )
    expect(() => planInputs([t('input_ids'), ...past(2, 16)], [logits], '/m/model.onnx', config)).toThrow('has head_dim 16, but /m/config.json says head_dim 8')
    expect(() => planInputs([t('input_ids'), ...past(2, 8)], [logits], '/m/model.onnx', { ...config, layers: 3 })).toThrow(
      '/m/model.onnx: the model has 1 layers of past_key_values inputs, but /m/config.json says num_hidden_layers 3',
    )
  })
})

describe('end to end', () => {
  const decoder = { hidden: 32, layers: 2, heads: 4, kvHeads: 2 }
  const config = { num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, hidden_size: 32 }

  it('a graph with symbolic cache dims runs from config.json, equal to the same weights with fixed dims', async () => {
    const fixed = makeModel({ decoder }, 'fixed')
    const symbolic = makeModel({ decoder: { ...decoder, symbolicPast: true } }, 'symbolic')
    await expect(scorer({ model: symbolic }).ready()).rejects.toThrow('with fixed kv_heads and head_dim expected')
    writeFileSync(join(symbolic, 'config.json'), JSON.stringify(config))
    const requests = sampleRequests()
    const a = await scorer({ model: symbolic, workers: 1 })(requests)
    const b = await scorer({ model: fixed, workers: 1 })(requests)
    expect(maxAbsDiff(a, b)).toBeLessThan(1e-6)
  })

  it('a config.json contradicting the graph fails at ready() naming both', async () => {
    const dir = makeModel({ decoder }, 'wrong')
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, num_key_value_heads: 4 }))
    await expect(scorer({ model: dir }).ready()).rejects.toThrow(`${join(dir, 'model.onnx')}: input "past_key_values.0.key" has kv_heads 2, but ${join(dir, 'config.json')} says num_key_value_heads 4`)
  })
})
