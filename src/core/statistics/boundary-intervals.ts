/**
 * Intervals that stay valid where the percentile bootstrap collapses. When every
 * decision is wrong (or every one right, or every one order-consistent), every
 * bootstrap replicate equals the estimate and the "interval" is a point: 0.0%
 * [0.0, 0.0] at n = 12 reads as certainty while twelve decisions say almost
 * nothing. The percentile bootstrap is known to fail at the boundary of the
 * parameter space (Andrews, Econometrica 68:399–405, 2000); an exact binomial
 * interval does not (Clopper & Pearson, Biometrika 26:404–413, 1934).
 */
import { clopperPearsonInterval } from '../math/binomial.ts'
import type { BootstrapInterval } from '../math/bootstrap.ts'

/** Whether a bootstrap interval has collapsed to a point (every replicate equal). */
export function isCollapsed(interval: Pick<BootstrapInterval, 'lower' | 'upper'>): boolean {
  return interval.upper - interval.lower <= 0
}

/**
 * A balanced-accuracy interval valid at 0 and 1: a Clopper–Pearson (1934) interval for each
 * class recall at level `1 − α/K` (Bonferroni over the K classes, Dunn 1961; so all K hold
 * together with probability ≥ `level`), then the mean of the lower bounds and the
 * mean of the upper bounds. Balanced accuracy is increasing in every recall, so the
 * result covers it with probability ≥ `level` (conservative). All 12 wrong over 2
 * classes of 6: [0, 0.4593] (each recall's 97.5% upper bound at 0/6).
 *
 * @param counts per class: `[hits, total]`, total ≥ 1
 */
export function balancedAccuracyBoundsExact(counts: readonly (readonly [hits: number, total: number])[], level: number): { lower: number; upper: number } {
  if (counts.length === 0) return { lower: 0, upper: 1 }
  const perClass = 1 - (1 - level) / counts.length
  let lower = 0
  let upper = 0
  for (const [hits, total] of counts) {
    const interval = clopperPearsonInterval(hits, total, perClass)
    lower += interval.lower / counts.length
    upper += interval.upper / counts.length
  }
  return { lower, upper }
}

/**
 * `interval` unchanged when it has width, else the same interval with `exact`'s bounds
 * and `method` saying so: the estimate, level and resampling facts are kept.
 */
export function unlessCollapsed(
  interval: BootstrapInterval,
  exact: () => { lower: number; upper: number },
  method: BootstrapInterval['method'],
): BootstrapInterval {
  if (!isCollapsed(interval)) return interval
  const { lower, upper } = exact()
  return { ...interval, lower: Math.min(lower, interval.estimate), upper: Math.max(upper, interval.estimate), method }
}
