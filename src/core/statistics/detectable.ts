/**
 * The smallest paired accuracy change a set of decisions detects: one rule for `evaluate` (one
 * run) and `compare` (two runs of the same decisions), so both state the same figure for the
 * same decisions and accuracy (Miller 2024, "Adding error bars to evals", Eq. 10).
 */
import { normalQuantile } from '../math/normal.ts'
import { minimumDetectableDifference } from '../math/power.ts'

/**
 * `MDD = (z_{α/2} + z_β)·√(deff·2p(1 − p)(1 − ρ)/n)` at α = 0.05 two-sided, power 0.8, ρ = 0.5,
 * with p the Wilson centre `(n·acc + z²/2)/(n + z²)` of the mean accuracy `acc` of the runs
 * compared (one run: its own), so a perfect or hopeless run does not claim zero variance.
 *
 * @param n decisions (paired decisions for a comparison)
 * @param accuracy observed accuracy; for two runs of the same decisions, their mean
 * @param level confidence level that sets z for the Wilson centre
 * @param designEffect of `group_id` clustering, ≥ 1 (for two runs, the larger of theirs)
 */
export function detectableDifference(n: number, accuracy: number, level: number, designEffect = 1): number {
  const z = normalQuantile(1 - (1 - level) / 2)
  const centre = n === 0 ? 0.5 : (n * accuracy + (z * z) / 2) / (n + z * z)
  return minimumDetectableDifference(n, { accuracy: centre, designEffect: Math.max(1, designEffect) })
}
