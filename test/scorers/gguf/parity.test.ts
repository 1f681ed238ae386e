// The same Qwen2 weights and tokenizer as a GGUF F32 file (llama.cpp through node-llama-cpp,
// F32 KV cache, flash attention off) and as an ONNX fp32 model (onnxruntime) give the same
// letter probabilities within 1e-4 and the same picks on 120 decisions under cyclic
// debiasing; the GGUF scorer evaluates each decision's shared prefix once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import type { EvalResult } from '../../../src/core/result/result.ts'
import { onnxScorer } from '../../../dist/onnx/index.js'
import { ggufScorer, type GgufScorer } from '../../../src/scorers/gguf/index.ts'
import { decisions, temp, writeTwins } from './helpers.ts'

const DECISIONS = decisions(120)
let gguf: GgufScorer
let onnx: ReturnType<typeof onnxScorer>
let fromGguf: EvalResult
let fromOnnx: EvalResult

beforeAll(async () => {
  const { onnx: dir, gguf: files } = writeTwins(undefined, ['F32'], { onnx: true })
  gguf = ggufScorer({ model: files.F32!, threads: 1, sequences: 2 })
  onnx = onnxScorer({ model: dir, workers: 1 })
  fromGguf = await evaluateWithScorer(DECISIONS, gguf, { debias: 'cyclic' })
  fromOnnx = await evaluateWithScorer(DECISIONS, onnx, { debias: 'cyclic' })
}, 120_000)

afterAll(async () => {
  await Promise.all([gguf?.close(), onnx?.close()])
  temp.removeAll()
})

describe('GGUF F32 against ONNX fp32, same weights', () => {
  it('gives letter probabilities within 1e-4 on every ordering of 120 decisions', () => {
    expect(fromGguf.records).toHaveLength(120)
    let max = 0
    let compared = 0
    fromGguf.records.forEach((record, i) => {
      const other = fromOnnx.records[i]!
      expect(record.id).toBe(other.id)
      for (const [option, p] of Object.entries(record.probabilities)) {
        max = Math.max(max, Math.abs(p - other.probabilities[option]!))
        compared++
      }
    })
    expect(compared).toBe(480)
    expect(max).toBeLessThan(1e-4)
  })

  it('picks the same option in every decision, and the decisions are not all one pick', () => {
    const picks = fromGguf.records.map((r) => r.prediction)
    expect(picks).toEqual(fromOnnx.records.map((r) => r.prediction))
    // A model that answered one option everywhere would agree trivially.
    expect(new Set(picks).size).toBeGreaterThan(1)
  })

  it('evaluates each decision\'s evidence once: tokens evaluated near the minimum, well below the prompts', () => {
    const { promptTokens, tokensEvaluated, minimumTokens, requests } = gguf.stats
    expect(requests).toBe(480)
    expect(tokensEvaluated).toBeGreaterThanOrEqual(minimumTokens)
    // Measured: 21,732 evaluated, 20,938 minimum, 36,848 in the prompts (the option lists differ per ordering).
    expect(tokensEvaluated).toBeLessThan(promptTokens * 0.65)
    expect(tokensEvaluated).toBeLessThanOrEqual(minimumTokens * 1.05)
  })
})
