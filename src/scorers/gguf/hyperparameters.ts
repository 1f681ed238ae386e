/**
 * A GGUF file's header checked against what llama.cpp accepts, before llama.cpp reads it: a
 * value llama.cpp asserts on (a layer count of 0, a tensor dimension of 0) aborts the whole
 * process (SIGABRT), where here it is a one-line {@link ConfigError} naming the key. Values are
 * read as the format stores them (node-llama-cpp's reader: uint32 as a number, uint64 as a
 * bigint), never through llama.cpp's 32-bit signed getters.
 */
import { ConfigError } from '../../core/support/errors.ts'

/** llama.cpp's LLAMA_MAX_LAYERS: `block_count` above it, or 0, is a failed assert. */
export const MAX_LAYERS = 512
/** GGUF versions llama.cpp reads. */
export const GGUF_VERSIONS = [2, 3] as const
/** llama.cpp reads these hyperparameters as uint32. */
const UINT32_MAX = 2 ** 32 - 1
/** Architectures without attention: their files say `head_count` 0 (llama.cpp's converters write it so). */
const NO_ATTENTION = new Set(['mamba', 'mamba2', 'rwkv6', 'rwkv6qwen2', 'rwkv7', 'arwkv7'])

/** What the scorer needs from a checked header. */
export interface CheckedHeader {
  readonly architecture: string
  /** `<arch>.context_length`, unsigned as stored; `undefined` when the file does not say. */
  readonly trainContext: number | undefined
}

/**
 * `version` and `metadata` (node-llama-cpp's `readGgufFileInfo`) checked: a {@link ConfigError}
 * for the first hyperparameter llama.cpp would abort on or misread.
 */
export function checkHyperparameters(path: string, version: number, metadata: Record<string, unknown>): CheckedHeader {
  const refuse = (what: string) => new ConfigError(`${path}: ${what}`)
  if (!(GGUF_VERSIONS as readonly number[]).includes(version)) throw refuse(`GGUF version ${version}: llama.cpp reads versions ${GGUF_VERSIONS.join(' and ')}`)
  const general = metadata.general as { architecture?: unknown } | undefined
  const architecture = typeof general?.architecture === 'string' ? general.architecture : 'none'
  const values = (metadata[architecture] ?? {}) as Record<string, unknown>
  const attention = (values.attention ?? {}) as Record<string, unknown>
  // One key: undefined when absent; a count as a number within uint32, or a one-line refusal.
  const count = (key: string, value: unknown): number | readonly number[] | undefined => {
    if (value === undefined) return undefined
    const one = (v: unknown): number => {
      const n = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : undefined
      if (n === undefined || n < 0n || n > BigInt(UINT32_MAX)) throw refuse(`${architecture}.${key} is ${typeof v === 'bigint' ? v.toString() : JSON.stringify(v)}: llama.cpp reads it as a count from 0 to ${UINT32_MAX}`)
      return Number(n)
    }
    return Array.isArray(value) ? value.map(one) : one(value)
  }
  // Scalars must be at least 1; a per-layer array may hold 0 for some layers (hybrid models), not for all.
  const atLeastOne = (key: string, value: unknown): void => {
    const n = count(key, value)
    if (n === undefined) return
    if (typeof n === 'number' ? n < 1 : n.length > 0 && n.every((v) => v < 1)) throw refuse(`${architecture}.${key} is ${JSON.stringify(n)}: llama.cpp needs at least 1 (it would abort on it)`)
  }
  const blocks = count('block_count', values.block_count)
  if (typeof blocks === 'number' && (blocks < 1 || blocks > MAX_LAYERS)) throw refuse(`${architecture}.block_count is ${blocks}: llama.cpp loads 1 to ${MAX_LAYERS} layers (it would abort on it)`)
  atLeastOne('embedding_length', values.embedding_length)
  // A mixture of experts may leave the dense feed-forward width at 0: its experts have their own.
  const experts = count('expert_count', values.expert_count)
  if (!(typeof experts === 'number' && experts > 0)) atLeastOne('feed_forward_length', values.feed_forward_length)
  else count('feed_forward_length', values.feed_forward_length)
  if (NO_ATTENTION.has(architecture)) {
    count('attention.head_count', attention.head_count)
    count('attention.head_count_kv', attention.head_count_kv)
  } else {
    atLeastOne('attention.head_count', attention.head_count)
    atLeastOne('attention.head_count_kv', attention.head_count_kv)
  }
  const context = count('context_length', values.context_length)
  if (context === 0) throw refuse(`${architecture}.context_length is 0: no prompt fits`)
  return { architecture, trainContext: typeof context === 'number' ? context : undefined }
}
