/** Checks on `evaluateWithScorer`'s input made before any scoring. */
import { validateDecisions } from '../decisions/load.ts'
import type { Decision } from '../decisions/schema.ts'
import { ConfigError } from '../support/errors.ts'
import { checkManifestExtras } from '../result/manifest-extras.ts'
import { MAX_CHUNK_SIZE } from './options.ts'
import { MAX_RESAMPLES } from '../math/bootstrap.ts'

/** The options {@link checkEvaluateInput} checks (a subset of `EvaluateOptions`). */
export interface CheckedEvaluateOptions {
  /** Requests per scorer call: an integer from 1 to {@link MAX_CHUNK_SIZE}. */
  chunkSize?: number | undefined
  /** `{ resamples, level }`: an integer from 1 to {@link MAX_RESAMPLES}, a level in (0, 1); checked before scoring, not after. */
  statistics?: boolean | { readonly resamples?: number | undefined; readonly level?: number | undefined } | undefined
  /** Extra manifest entries: an object naming no computed entry. */
  manifest?: Readonly<Record<string, unknown>> | undefined
}

/**
 * The evaluation's boundary: decisions passed in code get the same schema (and the
 * same unique-id rule) as a file read by the loader, and come back frozen; options
 * that could loop forever or falsify the manifest are refused before any scoring.
 */
export function checkEvaluateInput(decisions: readonly unknown[], options: CheckedEvaluateOptions): Decision[] {
  const { chunkSize } = options
  if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && chunkSize >= 1 && chunkSize <= MAX_CHUNK_SIZE))
    throw new ConfigError(`chunkSize must be an integer ≥ 1 and ≤ ${MAX_CHUNK_SIZE.toLocaleString('en')} (requests per scorer call), got ${String(chunkSize)}`)
  const { resamples, level } = typeof options.statistics === 'object' ? options.statistics : {}
  if (resamples !== undefined && !(Number.isInteger(resamples) && resamples >= 1 && resamples <= MAX_RESAMPLES))
    throw new ConfigError(`statistics.resamples must be an integer ≥ 1 and ≤ ${MAX_RESAMPLES.toLocaleString('en')}, got ${String(resamples)}`)
  if (level !== undefined && !(level > 0 && level < 1)) throw new ConfigError(`statistics.level must be in (0, 1), got ${String(level)}`)
  checkManifestExtras(options.manifest)
  return validateDecisions(decisions, '<decisions>')
}
