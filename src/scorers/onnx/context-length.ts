/** A model directory's context length, read from its Hugging Face `config.json`. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../core/errors.ts'

/** Keys of a Hugging Face `config.json` that give the longest sequence, in the order tried. */
export const CONTEXT_KEYS = ['max_position_embeddings', 'n_positions', 'max_seq_len', 'n_ctx'] as const

/**
 * The model's context length in tokens: the first positive integer among
 * {@link CONTEXT_KEYS} in `dir/config.json` (top level, or under `text_config` for
 * multimodal exports). `undefined` when the file or every key is missing. A file that
 * is not JSON is a {@link ConfigError} naming it.
 */
export function readContextLength(dir: string): number | undefined {
  const path = join(dir, 'config.json')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  let config: unknown
  try {
    config = JSON.parse(text)
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`)
  }
  for (const scope of [config, (config as { text_config?: unknown })?.text_config]) {
    if (typeof scope !== 'object' || scope === null) continue
    for (const key of CONTEXT_KEYS) {
      const value = Object.hasOwn(scope, key) ? (scope as Record<string, unknown>)[key] : undefined
      if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value
    }
  }
  return undefined
}
