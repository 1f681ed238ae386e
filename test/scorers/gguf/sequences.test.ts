// Parallel sequences and the context's edge give the numbers one sequence gives:
// - many sequences at once, whose outputs share llama.cpp batches, never hand a request another
//   request's letter probabilities (llama.cpp reorders a batch's outputs in place on their first
//   read, and node-llama-cpp reads them from several threads at once);
// - a prompt of exactly `contextLength` tokens is scored from all its tokens (node-llama-cpp
//   keeps a sequence's last cell free and would erase the prompt's start to make room).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import { ggufScorer, type GgufOutcome, type GgufScorer } from '../../../src/scorers/gguf/index.ts'
import { bpeTokenizer, buildGguf, tokenizerVocabSize } from '../../../scripts/onnx-fixture/index.ts'
import { SMALL, temp, writeTwins } from './helpers.ts'

const open: GgufScorer[] = []
const make = (options: Parameters<typeof ggufScorer>[0]) => {
  const scorer = ggufScorer({ threads: 1, ...options })
  open.push(scorer)
  return scorer
}
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()))
  temp.removeAll()
})

const OPTIONS = ['Billing', 'Technical support', 'Account access', 'Sales'].map((text, i) => ({ id: `o${i}`, text }))
const SENTENCES = ['The invoice was charged twice.', 'The app crashes after the update.', 'A user cannot log in.', 'The shipment is stuck at customs.']

/** `n` decisions of 1–8 sentences, each in its 4 rotations: prefixes of many lengths, so batches mix sequences' tokens unevenly. */
function rotations(n: number): ScoreRequest[] {
  return Array.from({ length: n }, (_, d) => {
    const state = Array.from({ length: 1 + ((d * 7) % 8) }, (_, k) => SENTENCES[(d + k) % 4]).join(' ') + ` Ticket ${d}.`
    return [0, 1, 2, 3].map((k) => {
      const criterion = { key: 'queue', question: 'Which queue?', options: OPTIONS.map((_, i) => OPTIONS[(i + k) % 4]!) }
      return { state, criterion, prompt: buildPrompt(state, criterion) }
    })
  }).flat()
}

const maxDiff = (a: GgufOutcome[], b: GgufOutcome[]) =>
  Math.max(...a.map((row, r) => (Array.isArray(row) && Array.isArray(b[r]) ? Math.max(...row.map((p, j) => Math.abs(p - (b[r] as number[])[j]!))) : Infinity)))

describe('parallel sequences', () => {
  it('16 sequences give each of 240 orderings its own probabilities, call after call (1 sequence within 1e-5)', async () => {
    // A wide vocabulary (unused rows past the tokenizer's) makes llama.cpp's in-place reorder of a batch's
    // logits slow enough for the race to show: on the old code, 1–3 of 6 calls gave some request another's probabilities.
    const dir = temp.make()
    const tokenizer = bpeTokenizer({ merges: 200 })
    const model = join(dir, 'wide.gguf')
    writeFileSync(model, buildGguf({ ...SMALL, vocab: Math.max(tokenizerVocabSize(tokenizer), 8192) }, tokenizer))
    const requests = rotations(60)
    const one = await make({ model, sequences: 1 })(requests)
    expect(one.every(Array.isArray)).toBe(true)
    const sixteen = make({ model, sequences: 16 })
    const diffs: number[] = []
    for (let call = 0; call < 6; call++) diffs.push(maxDiff(one, await sixteen(requests)))
    expect(Math.max(...diffs), diffs.map((d) => d.toExponential(1)).join(' ')).toBeLessThan(1e-5)
  }, 300_000)
})

describe('the context edge', () => {
  it('a prompt of exactly contextLength tokens is scored from all its tokens, one more is too_long', async () => {
    const requests = rotations(3).slice(8, 12)
    const { gguf } = writeTwins(SMALL, ['F32'])
    const wide = make({ model: gguf.F32! })
    const reference = await wide(requests)
    const length = wide.stats.promptTokens / requests.length
    expect(Number.isInteger(length)).toBe(true)
    // The same weights with a trained context of exactly the prompt's length: the default contextLength.
    const edge = writeTwins(SMALL, ['F32'], { gguf: { contextLength: length } })
    expect(maxDiff(reference, await make({ model: edge.gguf.F32! })(requests))).toBeLessThan(1e-6)
    expect(maxDiff(reference, await make({ model: gguf.F32!, contextLength: length })(requests))).toBeLessThan(1e-6)
    const short = await make({ model: gguf.F32!, contextLength: length - 1 })(requests)
    expect(short.every((outcome) => !Array.isArray(outcome) && outcome.failure === 'too_long')).toBe(true)
  }, 120_000)
})
