/**
 * The readout: the softmax over a request's letters at its last position, as the ONNX scorer
 * reads it (logits at the letters' ids, softmax over those), taken from llama.cpp's sampler.
 *
 * node-llama-cpp 3.21 has no logits API: `generateNext.probabilities` returns what its sampler
 * chain leaves, normalised in float32. Left greedy, that is the whole vocabulary, sorted and
 * copied into JavaScript (about 0.2 s of CPU per ordering at 151k tokens), and a letter more
 * than ~87 logits below the likeliest token underflows float32 there, so letters far down the
 * distribution came back as zeros or as denormals with a few bits. Here every other token's
 * logit is biased to −∞ and top-k keeps the k letters, so the chain leaves exactly the letters
 * and the probabilities are their softmax, relative to the best letter.
 */
import type { LlamaModel } from 'node-llama-cpp'

/** What `controlledEvaluate` is asked for at a request's last token. */
export interface LetterReadout {
  readonly probabilities: true
  readonly options: { readonly temperature: 1; readonly topK: number; readonly topP: 1; readonly minP: 0; readonly seed: 0; readonly tokenBias: unknown }
}

// A bias holds one entry per token of the vocabulary: keep the few letter sets a run uses, not all.
const KEPT = 8

/**
 * Readouts per letter set, for `model`. The bias is written to TokenBias's map directly: its
 * `set()` skips end-of-generation tokens, which would then stay in the top-k beside the letters.
 */
export function letterReadouts(llamaCpp: typeof import('node-llama-cpp'), model: LlamaModel, vocab: number): (letters: Int32Array) => LetterReadout {
  const kept = new Map<string, LetterReadout>()
  return (letters) => {
    const key = letters.join(',')
    let readout = kept.get(key)
    if (readout) {
      kept.delete(key)
    } else {
      const bias = new llamaCpp.TokenBias(model.tokenizer)
      const biases = (bias as unknown as { _biases?: unknown })._biases
      if (!(biases instanceof Map)) throw new Error('node-llama-cpp changed: TokenBias has no bias map (install node-llama-cpp 3.21.1)')
      const keep = new Set(letters)
      for (let token = 0; token < vocab; token++) if (!keep.has(token)) biases.set(token, -Infinity)
      readout = { probabilities: true, options: { temperature: 1, topK: keep.size, topP: 1, minP: 0, seed: 0, tokenBias: bias } }
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value!)
    }
    kept.set(key, readout)
    return readout
  }
}
