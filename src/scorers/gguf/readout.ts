/**
 * The readout: the softmax over a request's letters at its last position, as the ONNX scorer
 * reads it (logits at the letters' ids, softmax over those in float64). node-llama-cpp 3.22
 * hands back the raw logits of given tokens after an evaluation (`logits: { filter: { tokens } }`):
 * the letters' logits come straight from llama.cpp's output row, with no sampler chain between
 * (greedy, which only picks) and no float32 softmax over the vocabulary, so a letter far below
 * the likeliest token keeps its probability relative to the other letters.
 */
import { ScorerError } from '../../core/support/errors.ts'
import { softmax } from '../onnx/readout/readout.ts'

/** What `controlledEvaluate` is asked for at a request's last token. */
export interface LetterReadout {
  readonly logits: { readonly filter: { readonly tokens: readonly number[] } }
  readonly options: { readonly temperature: 0 }
}

/** The readout of `letters`: their raw logits (each distinct id once), greedy so no sampler reshapes them. */
export function letterReadout(letters: Int32Array): LetterReadout {
  return { logits: { filter: { tokens: [...new Set(letters)] } }, options: { temperature: 0 } }
}

/**
 * The letters' probabilities from the logits node-llama-cpp returned, in the letters' order: the
 * softmax over them. A letter without a finite logit is a {@link ScorerError}, never a zero.
 */
export function lettersFrom(logits: ReadonlyMap<number, number> | undefined, letters: Int32Array): number[] {
  const picked = Array.from(letters, (id) => {
    const logit = logits?.get(id)
    if (logit === undefined || Number.isNaN(logit)) throw new ScorerError(`llama.cpp returned no logit for letter token ${id}`)
    return logit
  })
  return softmax(picked)
}
