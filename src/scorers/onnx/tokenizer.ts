/**
 * tokenizer.json loading (via @huggingface/tokenizers, pure JS, no I/O of its own)
 * and the option-letter token ids. Runs on the main thread: tokenizing is cheap next
 * to inference, and the batcher needs the lengths to group rows of similar size.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Tokenizer } from '@huggingface/tokenizers'
import { ConfigError, ScorerError } from '../../core/errors.ts'
import { LETTERS } from '../../core/decisions.ts'

/** A loaded tokenizer plus the letter readout ids. */
export interface LoadedTokenizer {
  /** Path of the tokenizer.json it came from (for error messages). */
  readonly path: string
  /** Largest id the tokenizer can emit, plus one. */
  readonly vocabSize: number
  /** Token ids of a prompt, with the tokenizer's special tokens (e.g. BOS) as the model was trained. */
  encode(text: string): Int32Array
  /** Token ids of letters A.. for `count` options; a {@link ConfigError} if a letter is not one token. */
  letterIds(count: number): Int32Array
}

// The default prompt ends with "Answer:"; a letter must follow it as exactly one token.
const CONTEXT = 'Answer:'

/** Read `dir/tokenizer.json` (and `dir/tokenizer_config.json` when present). Errors name the file. */
export async function loadTokenizer(dir: string): Promise<LoadedTokenizer> {
  const path = join(dir, 'tokenizer.json')
  const json = await readJson(path, true)
  const configPath = join(dir, 'tokenizer_config.json')
  const config = ((await readJson(configPath, false)) ?? {}) as Record<string, unknown>
  if (json === null || typeof json !== 'object' || Array.isArray(json) || typeof (json as { model?: unknown }).model !== 'object')
    throw new ConfigError(`${path}: not a Hugging Face tokenizer.json (no "model" object)`)
  const model = (json as { model: { type?: string; unk_token?: string; vocab?: unknown } }).model
  // @huggingface/tokenizers 0.2.0 has no WordLevel class: it falls back to `Legacy`,
  // which takes the unknown token from the *config*, not the model. Without this,
  // unknown words encode as `undefined`.
  if (model.type === 'WordLevel' && config.unk_token === undefined && model.unk_token !== undefined) config.unk_token = model.unk_token
  let tokenizer: Tokenizer
  try {
    tokenizer = new Tokenizer(json, config)
    tokenizer.encode(CONTEXT)
  } catch (error) {
    throw new ConfigError(`${path}: @huggingface/tokenizers cannot load it: ${firstLine(error)}`)
  }
  const vocabSize = computeVocabSize(tokenizer, json as Record<string, unknown>)
  const letterCache: number[] = []

  const letterId = (index: number): number => {
    const cached = letterCache[index]
    if (cached !== undefined) return cached
    const letter = LETTERS[index]!
    const plain = (text: string): (number | undefined)[] => tokenizer.encode(text, { add_special_tokens: false }).ids as (number | undefined)[]
    const own = plain(' ' + letter)
    const id = own.at(-1)
    const tokens = tokenizer.encode(' ' + letter, { add_special_tokens: false }).tokens
    const problem = (why: string): ConfigError =>
      new ConfigError(`${path}: the option letter "${letter}" is not a single token (" ${letter}" encodes as [${tokens.join(', ')}]${why}); the readout needs one token per letter`)
    if (id === undefined || id === null) throw problem(', with no id')
    const unk = (tokenizer.model as { unk_token_id?: number } | null)?.unk_token_id
    if (unk !== undefined && id === unk) throw problem(', the unknown token')
    // In context: "Answer: X" must be "Answer:" plus exactly that one id, or the model
    // would never emit the letter as the next token and the readout would be meaningless.
    const before = plain(CONTEXT)
    const after = plain(CONTEXT + ' ' + letter)
    const sameStart = before.every((value, i) => after[i] === value)
    if (!(after.length === before.length + 1 && sameStart && after.at(-1) === id)) throw problem(' after "Answer:"')
    const clash = letterCache.indexOf(id)
    if (clash >= 0) throw new ConfigError(`${path}: letters "${LETTERS[clash]}" and "${letter}" map to the same token id ${id}`)
    letterCache[index] = id
    return id
  }

  return {
    path,
    vocabSize,
    encode(text) {
      const ids = tokenizer.encode(text).ids as (number | undefined)[]
      const out = new Int32Array(ids.length)
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]
        if (id === undefined || id === null)
          throw new ScorerError(`${path}: the tokenizer has no id for the piece "${tokenizer.encode(text).tokens[i]}" and no unknown token to fall back to`)
        out[i] = id
      }
      return out
    },
    letterIds(count) {
      const out = new Int32Array(count)
      for (let i = 0; i < count; i++) out[i] = letterId(i)
      return out
    },
  }
}

async function readJson(path: string, required: boolean): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (!required && code === 'ENOENT') return undefined
    throw new ConfigError(`${path}: cannot read it (${code ?? firstLine(error)})`)
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${firstLine(error)})`)
  }
}

function computeVocabSize(tokenizer: Tokenizer, json: Record<string, unknown>): number {
  let max = -1
  const vocab = (json.model as { vocab?: unknown }).vocab
  if (Array.isArray(vocab)) max = vocab.length - 1
  else if (vocab && typeof vocab === 'object') for (const id of Object.values(vocab as Record<string, number>)) if (typeof id === 'number') max = Math.max(max, id)
  for (const id of tokenizer.get_added_tokens_decoder().keys()) max = Math.max(max, id)
  return max + 1
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]!
}
