/**
 * tokenizer.json loading (via @huggingface/tokenizers, pure JS, no I/O of its own)
 * and the option-letter token ids. The scorer runs it in its workers, each tokenizing
 * its share of a call (docs/onnx-prompts.md#tokenization); `sceptic optimize-model` and the
 * tests load it directly.
 */
import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Tokenizer } from '@huggingface/tokenizers'
import { ConfigError, ScorerError, firstLineOf } from '../../../core/support/errors.ts'
import { letterIdsInContext } from '../../prompt/letter-readout.ts'
import { parseJsonText } from '../../../core/support/json-text.ts'

/** A loaded tokenizer plus the letter readout ids. */
export interface LoadedTokenizer {
  /** Path of the tokenizer.json it came from (for error messages). */
  readonly path: string
  /** Path of tokenizer_config.json beside it (it may not exist). */
  readonly configPath: string
  /** The parsed tokenizer_config.json; `{}` when there is none. */
  readonly config: Readonly<Record<string, unknown>>
  /** Largest id the tokenizer can emit, plus one. */
  readonly vocabSize: number
  /**
   * Token ids of a prompt. `special` true (default, the plain prompt): BOS and the like as
   * the tokenizer's post-processor adds them, plus BOS when tokenizer_config.json says
   * `add_bos_token: true` and the post-processor did not add it. `special` false (a
   * rendered chat template): only the special tokens the text itself spells out.
   */
  encode(text: string, special?: boolean): Int32Array
  /**
   * Token ids of letters A.. for `count` options, read in context after `prompt`
   * (module letter-readout.ts): encoded the same way as the prompt (`special`).
   * Computed once per prompt ending (its last 64 characters) and cached.
   */
  letterIdsAfter(prompt: string, count: number, special?: boolean): Int32Array
  /** {@link letterIdsAfter} the default prompt's `Answer:`. */
  letterIds(count: number): Int32Array
}

// The default prompt ends with "Answer:"; a letter must follow it as exactly one token.
const CONTEXT = 'Answer:'

// Loaded tokenizers of this process, by the identity of their two files: a real
// vocabulary (Gemma's 262k entries) takes seconds to parse and build, and several scorers
// on one model (criteria, chat and plain, the plugin's files) need it once.
const loaded = new Map<string, Promise<LoadedTokenizer>>()

/** Identity of a file for the memo: any rewrite changes ctime, even when mtime is set back. */
function fileStamp(path: string): string {
  try {
    const s = statSync(path)
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`
  } catch {
    return 'absent'
  }
}

/**
 * Read `dir/tokenizer.json` (and `dir/tokenizer_config.json` when present). Errors name
 * the file. The same unchanged files load once per process (failures are not kept).
 */
export function loadTokenizer(dir: string): Promise<LoadedTokenizer> {
  const key = [join(dir, 'tokenizer.json'), fileStamp(join(dir, 'tokenizer.json')), fileStamp(join(dir, 'tokenizer_config.json'))].join('|')
  let pending = loaded.get(key)
  if (!pending) {
    pending = readTokenizer(dir)
    loaded.set(key, pending)
    pending.catch(() => loaded.delete(key))
    // Bounded: a long-lived process that walks many models keeps the last few.
    if (loaded.size > 4) loaded.delete(loaded.keys().next().value!)
  }
  return pending
}

/** `dir/tokenizer_config.json` parsed (`{}` when absent) and its path; errors name the file. */
export async function readTokenizerConfig(dir: string): Promise<{ readonly config: Record<string, unknown>; readonly configPath: string }> {
  const configPath = join(dir, 'tokenizer_config.json')
  return { config: ((await readJson(configPath, false)) ?? {}) as Record<string, unknown>, configPath }
}

async function readTokenizer(dir: string): Promise<LoadedTokenizer> {
  const path = join(dir, 'tokenizer.json')
  const json = await readJson(path, true)
  const { config, configPath } = await readTokenizerConfig(dir)
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
    throw new ConfigError(`${path}: @huggingface/tokenizers cannot load it: ${firstLineOf(error)}`)
  }
  const vocabSize = computeVocabSize(tokenizer, json as Record<string, unknown>)
  const unknownId = (tokenizer.model as { unk_token_id?: number } | null)?.unk_token_id
  const bos = typeof config.bos_token === 'string' ? config.bos_token : (config.bos_token as { content?: string } | undefined)?.content
  const bosId = config.add_bos_token === true && typeof bos === 'string' ? tokenizer.token_to_id(bos) : undefined
  const rawIds = (text: string, special: boolean): (number | undefined)[] => {
    const ids = tokenizer.encode(text, { add_special_tokens: special }).ids as (number | undefined)[]
    // add_bos_token: true with a post-processor that does not add it (older Llama-style exports): add it once.
    return special && bosId !== undefined && ids[0] !== bosId ? [bosId, ...ids] : ids
  }
  const letterCache = new Map<string, Int32Array>()
  const letterIdsAfter = (prompt: string, count: number, special = true): Int32Array => {
    const key = `${special ? 1 : 0}|${count}|${prompt.slice(-64)}`
    let ids = letterCache.get(key)
    if (!ids) {
      ids = letterIdsInContext((text) => rawIds(text, special), (id) => tokenizer.decode([id]), prompt, count, path, unknownId)
      letterCache.set(key, ids)
    }
    return ids
  }

  return {
    path,
    configPath,
    config,
    vocabSize,
    encode(text, special = true) {
      const ids = rawIds(text, special)
      const out = new Int32Array(ids.length)
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]
        if (id === undefined || id === null)
          throw new ScorerError(`${path}: the tokenizer has no id for the piece "${tokenizer.encode(text).tokens[i]}" and no unknown token to fall back to`)
        out[i] = id
      }
      return out
    },
    letterIdsAfter,
    letterIds: (count) => letterIdsAfter(CONTEXT, count, false),
  }
}

async function readJson(path: string, required: boolean): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (!required && code === 'ENOENT') return undefined
    throw new ConfigError(`${path}: cannot read it (${code ?? firstLineOf(error)})`)
  }
  return parseJsonText(text.replace(/^\uFEFF/, ''), (at) => new ConfigError(`${path}: not valid JSON (${at})`))
}

function computeVocabSize(tokenizer: Tokenizer, json: Record<string, unknown>): number {
  let max = -1
  const vocab = (json.model as { vocab?: unknown }).vocab
  if (Array.isArray(vocab)) max = vocab.length - 1
  else if (vocab && typeof vocab === 'object') for (const id of Object.values(vocab as Record<string, number>)) if (typeof id === 'number') max = Math.max(max, id)
  for (const id of tokenizer.get_added_tokens_decoder().keys()) max = Math.max(max, id)
  return max + 1
}
