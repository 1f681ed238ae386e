/** A model directory's context length, read from its Hugging Face `config.json`, and the prompts that exceed it. */
import { scoreFailure, type ScoreFailure } from '../../../core/scorer/contract.ts'
import { positiveInteger, readConfigJson } from '../model/config-json.ts'

/** Keys of a Hugging Face `config.json` that give the longest sequence, in the order tried. */
export const CONTEXT_KEYS = ['max_position_embeddings', 'n_positions', 'max_seq_len', 'n_ctx'] as const

/**
 * The model's context length in tokens: the first positive integer among
 * {@link CONTEXT_KEYS} in `dir/config.json` (top level, or under `text_config` for
 * multimodal exports). `undefined` when the file or every key is missing. A file that
 * is not JSON is a {@link ConfigError} naming it.
 */
export function readContextLength(dir: string): number | undefined {
  const config = readConfigJson(dir)
  if (!config) return undefined
  for (const scope of [config.top, config.text]) {
    const value = scope && positiveInteger(scope, CONTEXT_KEYS)
    if (value !== undefined) return value
  }
  return undefined
}

/**
 * A `too_long` failure for each prompt longer than `limit` tokens (by request index;
 * `undefined` where it fits). Checked before inference: ORT would fail the whole batch
 * (an index past the position table) or read garbage.
 */
export function tooLongFailures(ids: readonly ArrayLike<number>[], limit: number | undefined): (ScoreFailure | undefined)[] {
  return ids.map((row) =>
    limit !== undefined && row.length > limit ? scoreFailure('too_long', `the prompt is ${row.length} tokens; the model's context is ${limit} (contextLength)`) : undefined,
  )
}
