/**
 * Tokenizing a share of a call, in a worker (docs/onnx-prompts.md#tokenization): each text's token
 * ids and the letter ids read after it, packed for one transfer back to the main thread.
 * Pure given the tokenizer.
 */
import type { LoadedTokenizer } from './tokenizer.ts'
import type { Encoded } from '../runtime/protocol.ts'
import { concat } from '../runtime/pack.ts'

/** Encode `texts` (`special`: add the tokenizer's special tokens) and read `letterCounts[i]` letter ids after each. */
export function encodeTexts(tokenizer: LoadedTokenizer, texts: readonly string[], letterCounts: Int32Array, special: boolean): Encoded {
  const parts: Int32Array[] = []
  const letterParts: Int32Array[] = []
  // Per text, ids then letters: the first failing text reports first, as it would alone.
  texts.forEach((text, i) => {
    const ids = tokenizer.encode(text, special)
    parts.push(ids)
    // Nothing to read after no tokens: the main thread reports the empty prompt by its request.
    letterParts.push(ids.length === 0 ? new Int32Array(letterCounts[i]!) : tokenizer.letterIdsAfter(text, letterCounts[i]!, special))
  })
  return { ids: concat(parts), lengths: Int32Array.from(parts, (part) => part.length), letters: concat(letterParts) }
}

