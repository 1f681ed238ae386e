/** Checks on `evaluateWithScorer`'s input made before any scoring. */
import { validateDecisions, type Decision } from './decisions.ts'
import { ConfigError } from './errors.ts'
import { checkManifestExtras } from './manifest-extras.ts'

/** The options {@link checkEvaluateInput} checks (a subset of `EvaluateOptions`). */
export interface CheckedEvaluateOptions {
  /** Requests per scorer call: an integer ≥ 1. */
  chunkSize?: number | undefined
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
  if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && chunkSize >= 1))
    throw new ConfigError(`chunkSize must be an integer ≥ 1 (requests per scorer call), got ${String(chunkSize)}`)
  checkManifestExtras(options.manifest)
  return validateDecisions(decisions, '<decisions>')
}
