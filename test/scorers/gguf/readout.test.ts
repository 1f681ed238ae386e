// The GGUF readout is the softmax over the request's letters, as the ONNX readout: llama.cpp's
// sampler keeps only the letters (every other logit biased to −∞, top-k of the letters), so
// node-llama-cpp hands back k probabilities, not its whole vocabulary sorted. On a model whose
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
import { lettersFrom, letterReadouts, RAISE } from '../../../src/scorers/gguf/readout.ts'
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
    // The letters sat more than RAISE logits below the likeliest token: those orderings were read again, exactly.
    expect(gguf.stats.exactReadouts).toBeGreaterThan(0)
    expect(fromGguf.records.map((r) => r.prediction)).toEqual(fromOnnx.records.map((r) => r.prediction))
    // Answers, and not one answer everywhere: agreement would then be trivial. (Ties are no answer: this head is that confident.)
    expect(new Set(fromGguf.records.map((r) => r.prediction).filter((p) => p !== null)).size).toBeGreaterThan(1)
  })
})

describe('lettersFrom', () => {
  it("gives the letters' probabilities in the letters' order, and nothing when another token was left", () => {
    const letters = Int32Array.from([7, 5, 9])
    expect(lettersFrom(new Map([[5, 0.25], [9, 0.25], [7, 0.5]]), letters)).toEqual([0.5, 0.25, 0.25])
    // A letter the chain left out has probability 0 (it can only be left out beside other letters).
    expect(lettersFrom(new Map([[5, 1]]), letters)).toEqual([0, 1, 0])
    expect(lettersFrom(new Map([[5, 0.5], [9, 0.25], [8, 0.25]]), letters)).toBeUndefined()
    expect(lettersFrom(undefined, letters)).toBeUndefined()
  })
})

describe('letterReadouts', () => {
  it('keeps exactly the distinct letters: every other token, end-of-generation ones included, is biased to −∞', async () => {
    const llamaCpp = await import('node-llama-cpp')
    const llama = await llamaCpp.getLlama({ gpu: false, build: 'never' })
    const model = await llama.loadModel({ modelPath: twins.gguf.F32!, gpuLayers: 0 })
    try {
      const vocab = (model.fileInfo.metadata as { tokenizer: { ggml: { tokens: readonly unknown[] } } }).tokenizer.ggml.tokens.length
      const eos = model.tokens.eos as number
      expect(model.isEogToken(model.tokens.eos!)).toBe(true)
      const readouts = letterReadouts(llamaCpp, model, vocab)
      const a = readouts.exact(Int32Array.from([10, 11, 11, 12]))
      const biases = (a.options.tokenBias as { _biases: Map<number, number> })._biases
      expect(a.options.topK).toBe(3)
      expect(biases.size).toBe(vocab - 3)
      expect([10, 11, 12].some((id) => biases.has(id))).toBe(false)
      expect(biases.get(eos)).toBe(-Infinity)
      expect([...biases.values()].every((b) => b === -Infinity)).toBe(true)
      // The same letters give the same readout; the ninth new set pushes out the least recently used.
      expect(readouts.exact(Int32Array.from([10, 11, 11, 12]))).toBe(a)
      for (let i = 0; i < 8; i++) readouts.exact(Int32Array.from([20 + i, 30]))
      expect(readouts.exact(Int32Array.from([10, 11, 11, 12]))).not.toBe(a)
      // The raised readout: only the distinct letters, each raised by RAISE, top-k of them.
      const raised = readouts.raised(Int32Array.from([10, 11, 11, 12]))
      expect(raised.options.topK).toBe(3)
      expect([...(raised.options.tokenBias as { _biases: Map<number, number> })._biases]).toEqual([[10, RAISE], [11, RAISE], [12, RAISE]])
      expect(readouts.raised(Int32Array.from([10, 11, 11, 12]))).toBe(raised)
    } finally {
      await model.dispose()
    }
  }, 60_000)
})

