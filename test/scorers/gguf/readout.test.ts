// The GGUF readout is the softmax over the request's letters, as the ONNX readout: node-llama-cpp
// hands back the letters' raw logits (its filtered logits), not its whole vocabulary's float32
// probabilities. On a model whose
// letters sit far below its likeliest token (a confident head, final-norm gain 80), the whole
// vocabulary's float32 softmax underflowed every letter to 0, and the run failed ("the scorer
// returned all zeros") where ONNX, from the same weights, reads the letters.
import { getLlama } from 'node-llama-cpp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import type { EvalResult } from '../../../src/core/result/result.ts'
import { onnxScorer } from '../../../dist/onnx/index.js'
import { ggufScorer, type GgufScorer } from '../../../src/scorers/gguf/index.ts'
import { letterReadout, lettersFrom } from '../../../src/scorers/gguf/readout.ts'
import { decisions, maxDistance, SMALL, temp, writeTwins } from './helpers.ts'

const DECISIONS = decisions(40)
let twins: ReturnType<typeof writeTwins>
let gguf: GgufScorer
let fromGguf: EvalResult
let fromOnnx: EvalResult

beforeAll(async () => {
  twins = writeTwins({ ...SMALL, headScale: 80 }, ['F32'], { onnx: true })
  gguf = ggufScorer({ model: twins.gguf.F32!, threads: 1 })
  const onnx = onnxScorer({ model: twins.onnx, workers: 1 })
  try {
    fromOnnx = await evaluateWithScorer(DECISIONS, onnx, { debias: 'cyclic' })
    fromGguf = await evaluateWithScorer(DECISIONS, gguf, { debias: 'cyclic' })
  } finally {
    await onnx.close()
  }
}, 120_000)

afterAll(async () => {
  await gguf?.close()
  temp.removeAll()
})

describe('letters far below the likeliest token', () => {
  it("the premise: the whole vocabulary's float32 softmax gives some orderings' letters no probability at all", async () => {
    const llama = await getLlama({ gpu: false, build: 'never' })
    const model = await llama.loadModel({ modelPath: twins.gguf.F32!, gpuLayers: 0 })
    const context = await model.createContext({ contextSize: 256, threads: 1, flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' } as never)
    let underflowed = 0
    try {
      const sequence = context.getSequence()
      for (const decision of DECISIONS.slice(0, 8)) {
        const ids = model.tokenize(buildPrompt(decision.state, decision.criterion), true) as number[]
        const letters = ['A', 'B', 'C', 'D'].map((l) => (model.tokenize(` ${l}`, false) as number[]).at(-1)!)
        await sequence.clearHistory()
        const out = await sequence.controlledEvaluate([...ids.slice(0, -1), [ids.at(-1)!, { generateNext: { probabilities: true } }]] as never[])
        const all = (out.at(-1) as { next: { probabilities: Map<number, number> } }).next.probabilities
        if (letters.every((id) => (all.get(id) ?? 0) === 0)) underflowed++
      }
    } finally {
      await context.dispose()
      await model.dispose()
    }
    expect(underflowed).toBeGreaterThan(0)
  }, 60_000)

  it('reads the same letter probabilities as ONNX fp32 (within 1e-4) and the same picks', () => {
    const max = maxDistance(fromGguf, fromOnnx)
    expect(fromGguf.records).toHaveLength(40)
    expect(max).toBeLessThan(1e-4)
    expect(fromGguf.records.map((r) => r.prediction)).toEqual(fromOnnx.records.map((r) => r.prediction))
    // Answers, and not one answer everywhere: agreement would then be trivial. (Ties are no answer: this head is that confident.)
    expect(new Set(fromGguf.records.map((r) => r.prediction).filter((p) => p !== null)).size).toBeGreaterThan(1)
  })
})

describe('lettersFrom', () => {
  it("gives the softmax over the letters' logits in the letters' order, a repeated letter counted at each place", () => {
    const letters = Int32Array.from([7, 5, 9])
    const logits = new Map([[9, -1000], [7, -1000 + Math.log(2)], [5, -1000]])
    const read = lettersFrom(logits, letters)
    expect(read[0]).toBeCloseTo(0.5, 12)
    expect(read[1]).toBeCloseTo(0.25, 12)
    expect(read[2]).toBeCloseTo(0.25, 12)
    // As ONNX reads it: one entry per letter place.
    expect(lettersFrom(new Map([[5, 0], [9, 0]]), Int32Array.from([5, 5, 9]))).toEqual([1 / 3, 1 / 3, 1 / 3])
  })

  it('refuses a letter without a logit: never a silent zero', () => {
    expect(() => lettersFrom(new Map([[5, 1]]), Int32Array.from([5, 9]))).toThrow(/no logit for letter token 9/)
    expect(() => lettersFrom(undefined, Int32Array.from([5]))).toThrow(/no logit/)
    expect(() => lettersFrom(new Map([[5, NaN]]), Int32Array.from([5]))).toThrow(/no logit/)
  })
})

describe('letterReadout', () => {
  it("asks for the distinct letters' raw logits, greedy, with no bias and no top-k", async () => {
    expect(letterReadout(Int32Array.from([10, 11, 11, 12]))).toEqual({ logits: { filter: { tokens: [10, 11, 12] } }, options: { temperature: 0 } })
    // node-llama-cpp returns exactly those tokens' logits, the raw ones: the same letters' logits whatever else the request asks for.
    const llamaCpp = await import('node-llama-cpp')
    const llama = await llamaCpp.getLlama({ gpu: false, build: 'never' })
    const model = await llama.loadModel({ modelPath: twins.gguf.F32!, gpuLayers: 0 })
    const context = await model.createContext({ contextSize: 256, threads: 1, flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' } as never)
    try {
      const sequence = context.getSequence()
      const ids = model.tokenize(buildPrompt(DECISIONS[0]!.state, DECISIONS[0]!.criterion), true) as number[]
      const letters = Int32Array.from(['A', 'B', 'C', 'D'].map((l) => (model.tokenize(` ${l}`, false) as number[]).at(-1)!))
      const read = async (generateNext: object) => {
        await sequence.clearHistory()
        const out = await sequence.controlledEvaluate([...ids.slice(0, -1), [ids.at(-1)!, { generateNext }]] as never[])
        return (out.at(-1) as { next: { logits?: Map<number, number> } }).next.logits!
      }
      const filtered = await read(letterReadout(letters))
      expect([...filtered.keys()].sort()).toEqual([...letters].sort())
      const all = await read({ logits: true })
      for (const id of letters) expect(filtered.get(id)).toBe(all.get(id))
      // The letters sit far below the likeliest token on this head, which the float32 softmax lost.
      expect(Math.max(...all.values()) - Math.max(...letters.map((id) => all.get(id)!))).toBeGreaterThan(87)
    } finally {
      await context.dispose()
      await model.dispose()
    }
  }, 60_000)
})
