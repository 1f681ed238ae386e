/** Checks on `evaluateWithScorer`'s input made before any scoring (its options: settings.ts). */
import { validateDecisions } from '../decisions/load.ts'
import type { Decision } from '../decisions/schema.ts'
import { checkManifestExtras } from '../result/manifest-extras.ts'

/**
 * The evaluation's boundary: decisions passed in code get the same schema (and the
 * same unique-id rule) as a file read by the loader, and come back frozen; manifest
 * extras that would falsify the manifest are refused before any scoring.
 */
export function checkEvaluateInput(decisions: readonly unknown[], options: { manifest?: Readonly<Record<string, unknown>> | undefined }): Decision[] {
  checkManifestExtras(options.manifest)
  return validateDecisions(decisions, '<decisions>')
}
