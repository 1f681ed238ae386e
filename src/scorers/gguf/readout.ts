/**
 * The readout: the softmax over a request's letters at its last position, as the ONNX scorer
 * reads it (logits at the letters' ids, softmax over those), taken from llama.cpp's sampler.
 *
 * node-llama-cpp 3.21 has no logits API: `generateNext.probabilities` returns what its sampler
 * chain leaves, normalised in float32. Left greedy, that is the whole vocabulary, sorted and
 * copied into JavaScript (about 0.2 s of CPU per ordering at 151k tokens), and a letter more
 * than ~87 logits below the likeliest token underflows float32 there. So the chain is made to
 * leave exactly the letters (top-k of the k letters, temperature 1), and their probabilities
 * are the letters' softmax, relative to the best letter. Two readouts do that:
 * - **raised** (first): the letters' logits raised by {@link RAISE}. When the letters are then
 *   the k likeliest tokens, which they are unless one sits more than RAISE logits below the
 *   likeliest, the top-k is the letters. Its bias has k entries, which node-llama-cpp copies
 *   on every call at no cost; float32 rounding of the raised logits moves a probability by
 *   ~1e-6 at most.
 * - **exact** (when the raised readout left another token in): every other token's logit at
 *   −∞. Its bias has one entry per token of the vocabulary, which node-llama-cpp converts on
 *   every call (~50 ms of CPU at 151k tokens), so it is kept for the requests that need it.
 */
import type { LlamaModel } from 'node-llama-cpp'

/** What `controlledEvaluate` is asked for at a request's last token. */
export interface LetterReadout {
  readonly probabilities: true
  readonly options: { readonly temperature: 1; readonly topK: number; readonly topP: 1; readonly minP: 0; readonly seed: 0; readonly tokenBias: unknown }
}

/** The two readouts of a letter set, and the letters' probabilities from what either left. */
export interface LetterReadouts {
  readonly raised: (letters: Int32Array) => LetterReadout
  readonly exact: (letters: Int32Array) => LetterReadout
}

/**
 * How far the raised readout lifts the letters' logits. Large enough that a letter is rarely
 * out of the top-k in a trained model (letters after "Answer:" sit within a few logits of the
 * likeliest token); small enough that float32 keeps the raised logits within ~4e-6 of each
 * other's true gap (spacing 7.6e-6 below 128).
 */
export const RAISE = 64

// An exact bias holds one entry per token of the vocabulary: keep the few letter sets a run uses, not all.
const KEPT = 8

/**
 * Readouts per letter set, for `model`. A bias is written to TokenBias's map directly: its
 * `set()` skips end-of-generation tokens, which would then stay in the top-k beside the letters.
 */
export function letterReadouts(llamaCpp: typeof import('node-llama-cpp'), model: LlamaModel, vocab: number): LetterReadouts {
  const biasMap = (): { bias: unknown; map: Map<number, number> } => {
    const bias = new llamaCpp.TokenBias(model.tokenizer)
    const map = (bias as unknown as { _biases?: unknown })._biases
    if (!(map instanceof Map)) throw new Error('node-llama-cpp changed: TokenBias has no bias map (install node-llama-cpp 3.21.1)')
    return { bias, map }
  }
  const readout = (topK: number, tokenBias: unknown): LetterReadout => ({ probabilities: true, options: { temperature: 1, topK, topP: 1, minP: 0, seed: 0, tokenBias } })
  // Raised biases are small: keep many letter sets. Exact ones hold the vocabulary: keep few.
  const raised = keptPerLetters(256, (letters) => {
    const { bias, map } = biasMap()
    for (const id of letters) map.set(id, RAISE)
    return readout(map.size, bias)
  })
  const exact = keptPerLetters(KEPT, (letters) => {
    const { bias, map } = biasMap()
    const keep = new Set(letters)
    for (let token = 0; token < vocab; token++) if (!keep.has(token)) map.set(token, -Infinity)
    return readout(keep.size, bias)
  })
  return { raised, exact }
}

/** `make(letters)`, kept per letter set: the `limit` most recently used. */
function keptPerLetters(limit: number, make: (letters: Int32Array) => LetterReadout): (letters: Int32Array) => LetterReadout {
  const kept = new Map<string, LetterReadout>()
  return (letters) => {
    const key = letters.join(',')
    let found = kept.get(key)
    if (found) kept.delete(key)
    else {
      found = make(letters)
      if (kept.size >= limit) kept.delete(kept.keys().next().value!)
    }
    kept.set(key, found)
    return found
  }
}

/**
 * The letters' probabilities from what a readout left, in the letters' order; `undefined`
 * when it left any other token (the raised readout's top-k held a token likelier than a
 * raised letter: read again with the exact readout).
 */
export function lettersFrom(left: ReadonlyMap<number, number> | undefined, letters: Int32Array): number[] | undefined {
  if (!left) return undefined
  for (const token of left.keys()) if (!letters.includes(token)) return undefined
  return Array.from(letters, (id) => left.get(id) ?? 0)
}
