/**
 * Decisions whose model gave a choice but no probabilities (a one-hot vector flagged
 * `no_distribution`): calibration cannot be measured on them, so ECE and Brier are
 * `null` when any scored decision carries the flag, and the reports say why.
 */
import type { Manifest } from '../result/result.ts'

/** The flag a scorer sets on an outcome whose vector is one-hot on the model's choice, not a distribution. */
export const NO_DISTRIBUTION = 'no_distribution'

/** What the reports print for ECE and Brier when they were not measured for this reason. */
export const NO_DISTRIBUTION_NOTE = 'not measured: the model gave no probabilities'

/** Flagged `no_distribution` decisions in a result's manifest (0 when none). */
export function noDistributionCount(manifest: Pick<Manifest, 'flagged'>): number {
  return (manifest.flagged as Record<string, number> | undefined)?.[NO_DISTRIBUTION] ?? 0
}
