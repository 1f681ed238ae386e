// The GGUF writer at a realistic vocabulary: writeGgufFromOnnx (the weights read back from an
// ONNX model, inline or external data, one tensor in memory at a time, as the 0.5B bench needs)
// writes the bytes buildGguf writes, mixed blocks included; and a Qwen tokenizer (151k
// vocabulary, Qwen's pre-split regex: single digits, punctuation joined to words) written with
// `pre: 'qwen2'` tokenizes as tokenizer.json does, so GGUF F32 and ONNX fp32 agree within 1e-4.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { onnxScorer } from '../../../dist/onnx/index.js'
import { ggufScorer } from '../../../src/scorers/gguf/index.ts'
import { bpeTokenizer, tokenizerVocabSize, writeModelDir, type GgufOptions } from '../../../scripts/onnx-fixture/index.ts'
import { buildGguf, writeGgufFromOnnx } from '../../../scripts/onnx-fixture/gguf.ts'
import { tokenizerFiles } from '../onnx/real-tokenizers.ts'
import { decisions, maxDistance, SMALL, temp } from './helpers.ts'

afterAll(() => temp.removeAll())

describe('writeGgufFromOnnx', () => {
  const tokenizer = bpeTokenizer({ merges: 200 })
  const decoder = { ...SMALL, vocab: tokenizerVocabSize(tokenizer) }
  const cases: [string, GgufOptions][] = [
    ['F32', { type: 'F32' }],
    ['F16', { type: 'F16' }],
    ['Q8_0', { type: 'Q8_0' }],
    ['Q8_0 with an F32 token embedding (mixed blocks)', { type: 'Q8_0', embeddingType: 'F32' }],
  ]
  for (const layout of ['inline', 'external data'] as const)
    it.each(cases)(`writes buildGguf's bytes from an ONNX model with ${layout} weights: %s`, (_, options) => {
      const dir = temp.make()
      writeModelDir(dir, { tokenizer, decoder, nested: true, ...(layout === 'external data' ? { externalDataMinBytes: 1024 } : {}) })
      const out = join(dir, 'model.gguf')
      writeGgufFromOnnx(out, join(dir, 'onnx', 'model.onnx'), decoder, tokenizer, options)
      expect(Buffer.compare(readFileSync(out), Buffer.from(buildGguf(decoder, tokenizer, options)))).toBe(0)
    })

  it('keeps a mixed file smaller than F32 and larger than Q8_0 alone', () => {
    const size = (options: GgufOptions) => buildGguf(decoder, tokenizer, options).length
    expect(size({ type: 'Q8_0' })).toBeLessThan(size({ type: 'Q8_0', embeddingType: 'F32' }))
    expect(size({ type: 'Q8_0', embeddingType: 'F32' })).toBeLessThan(size({ type: 'F32' }))
  })
})

describe("a Qwen tokenizer (151k vocabulary) written with pre: 'qwen2'", () => {
  // Decisions 96-107: evidence with "(ticket 103)": Qwen splits digits one by one, GPT-2's regex does not.
  // Few decisions: each ordering's readout copies a 151k-entry bias into llama.cpp's sampler (about 0.1 s of CPU).
  const DECISIONS = decisions(108).slice(96)
  it('gives the letter probabilities of the same weights in ONNX fp32 within 1e-4, and the same picks', async () => {
    const dir = temp.make()
    const tokenizer = JSON.parse(readFileSync(join(tokenizerFiles('qwen3'), 'tokenizer.json'), 'utf8'))
    const decoder = { ...SMALL, vocab: tokenizerVocabSize(tokenizer) }
    expect(decoder.vocab).toBeGreaterThan(150_000)
    writeModelDir(dir, { tokenizer, decoder, nested: true })
    writeGgufFromOnnx(join(dir, 'model.gguf'), join(dir, 'onnx', 'model.onnx'), decoder, tokenizer, { pre: 'qwen2' })
    const gguf = ggufScorer({ model: join(dir, 'model.gguf'), threads: 1 })
    const onnx = onnxScorer({ model: dir, workers: 1 })
    try {
      const fromGguf = await evaluateWithScorer(DECISIONS, gguf, { debias: 'cyclic' })
      const fromOnnx = await evaluateWithScorer(DECISIONS, onnx, { debias: 'cyclic' })
      const max = maxDistance(fromGguf, fromOnnx)
      expect(fromGguf.records).toHaveLength(12)
      expect(max).toBeLessThan(1e-4)
      expect(fromGguf.records.map((r) => r.prediction)).toEqual(fromOnnx.records.map((r) => r.prediction))
      // The same tokens, not merely close numbers: the prompts' token counts agree.
      expect(gguf.stats.promptTokens).toBe(onnx.stats.promptTokens)
    } finally {
      await Promise.all([gguf.close(), onnx.close()])
    }
  }, 300_000)
})
