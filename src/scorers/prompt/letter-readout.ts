/**
 * The option letters' token ids, read in context (docs/onnx.md, "Letter readout"): the
 * letter that answers a prompt is the first token the model emits after the prompt's
 * own tokens, so its id is the first id of `encode(prompt + continuation)` after the
 * ids of `encode(prompt)`. The continuation is `" " + L` after a prompt ending in a
 * non-whitespace character (the plain prompt's `Answer:`) and `L` after one ending in
 * whitespace (a chat template's assistant header ends in a newline). Pure: the
 * encoder is passed in.
 */
import { ConfigError } from '../../core/support/errors.ts'
import { LETTERS } from '../../core/decisions/schema.ts'

/** What follows `prompt` when the model answers with `letter`. */
export function letterContinuation(prompt: string, letter: string): string {
  return /\s$/u.test(prompt) ? letter : ' ' + letter
}

/** Ids of a text, special tokens applied exactly as for scoring; `undefined` entries are pieces without an id. */
export type Encode = (text: string) => ArrayLike<number | undefined>

/**
 * Letter ids A.. for `count` options after `prompt`. A {@link ConfigError} naming
 * `path` when a letter merges with the prompt's last token (the prompt's ids are not a
 * prefix of the extended encoding), has no id or the unknown id, or when two letters
 * share their first id, or when the first id is not the letter's own (it decodes to
 * text without the letter, e.g. a bare space when " C" splits into " " + "C").
 */
export function letterIdsInContext(encode: Encode, decode: (id: number) => string, prompt: string, count: number, path: string, unknownId?: number): Int32Array {
  if (count > LETTERS.length) throw new ConfigError(`${path}: ${count} options, but letters go up to ${LETTERS.at(-1)} (${LETTERS.length})`)
  const before = encode(prompt)
  const tail = JSON.stringify(prompt.slice(-24))
  const out = new Int32Array(count)
  for (let i = 0; i < count; i++) {
    const letter = LETTERS[i]!
    const continuation = letterContinuation(prompt, letter)
    const after = encode(prompt + continuation)
    const problem = (why: string): ConfigError =>
      new ConfigError(`${path}: the option letter "${letter}" cannot be read after the prompt (ending …${tail}, continued by ${JSON.stringify(continuation)}): ${why}; the readout needs the letter's own first token`)
    for (let j = 0; j < before.length; j++)
      if (after[j] !== before[j]) throw problem(`the prompt's tokens are not a prefix of the extended encoding (the letter merges with the prompt's token at position ${j})`)
    const id = after[before.length]
    if (id === undefined || id === null) throw problem('no token follows the prompt, or it has no id')
    if (unknownId !== undefined && id === unknownId) throw problem('it encodes as the unknown token')
    if (!decode(id).includes(letter)) throw problem(`it is not a token of its own: the first token after the prompt is ${JSON.stringify(decode(id))}`)
    const clash = out.subarray(0, i).indexOf(id)
    if (clash >= 0) throw new ConfigError(`${path}: letters "${LETTERS[clash]}" and "${letter}" share the first token id ${id} after the prompt (ending …${tail}); the readout cannot tell them apart`)
    out[i] = id
  }
  return out
}
