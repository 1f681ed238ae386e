/** Standard errors, design effects and power for evals (Miller 2024, "Adding error bars to evals"). */
import { normalQuantile } from './normal.ts'
import { z } from 'zod'
import { refuseOutOfBounds, refuseUnknownOptions, type SameKeys } from '../support/options.ts'

/** Central-limit standard error of a mean (Miller 2024 Eq. 1): √(s²/n) with the n − 1 sample variance. 0 for n < 2. */
export function cltStandardError(scores: readonly number[]): number {
  const n = scores.length
  if (n < 2) return 0
  const mean = scores.reduce((s, x) => s + x, 0) / n
  const variance = scores.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)
  return Math.sqrt(variance / n)
}

/**
 * Clustered standard error of a mean (Miller 2024 Eq. 4, App. A):
 * `√(Σ_c (Σ_{i∈c} (s_i − s̄))²) / n`, without Inspect's C/(C − 1) correction
 * (Inspect's value is larger by exactly √(C/(C − 1))). Scores [1,1,1,0,0,0,1,0] in
 * clusters [0,0,0,1,1,1,2,2] → 0.26517. `null` cluster ids are singletons.
 */
export function clusteredStandardError(scores: readonly number[], clusters: readonly (string | number | null | undefined)[]): number {
  const n = scores.length
  if (n === 0) return 0
  const mean = scores.reduce((s, x) => s + x, 0) / n
  const sums = new Map<unknown, number>()
  scores.forEach((score, i) => {
    const key = clusters[i] ?? Symbol(i)
    sums.set(key, (sums.get(key) ?? 0) + (score - mean))
  })
  let total = 0
  for (const sum of sums.values()) total += sum * sum
  return Math.sqrt(total) / n
}

/** Inputs of Miller's power formula (Eq. 10); variances are per-question, on the score's scale. */
export interface MillerPowerInput {
  /** ω² = Var(x_A) + Var(x_B) − 2·Cov(x_A, x_B): variance of the per-question difference of mean scores. */
  omega2: number
  /** Within-question (sampling) variance of A's score, σ_A². Default 0 (next-token probabilities remove it). */
  sigmaA2?: number
  /** Within-question variance of B's score, σ_B². Default 0. */
  sigmaB2?: number
  /** Samples per question for A, K_A. Default 1. */
  kA?: number
  /** Samples per question for B, K_B. Default 1. */
  kB?: number
  /** Significance level α. Default 0.05. */
  alpha?: number
  /** Power 1 − β. Default 0.8. */
  power?: number
  /** Two-sided (z_{α/2}, default) or one-sided (z_α) test. */
  sides?: 1 | 2
}

function millerVariance({ omega2, sigmaA2 = 0, sigmaB2 = 0, kA = 1, kB = 1 }: MillerPowerInput): number {
  return omega2 + sigmaA2 / kA + sigmaB2 / kB
}

function millerZ({ alpha = 0.05, power = 0.8, sides = 2 }: MillerPowerInput): number {
  return normalQuantile(1 - alpha / sides) + normalQuantile(power)
}

/**
 * Minimum detectable effect of a paired comparison (Miller 2024 Eq. 10):
 * `δ = (z_{α/s} + z_β)·√((ω² + σ_A²/K_A + σ_B²/K_B) / n)`. With σ² = 1/6, ω² = 1/9,
 * n = 200: 0.1321 at K = 1 and 0.0753 at K = 10.
 */
export function millerMinimumDetectableEffect(n: number, input: MillerPowerInput): number {
  if (!(n > 0)) return Infinity
  return millerZ(input) * Math.sqrt(millerVariance(input) / n)
}

/**
 * Questions needed to detect a difference δ (Miller 2024 Eq. 9):
 * `n = (z_{α/s} + z_β)²·(ω² + σ_A²/K_A + σ_B²/K_B) / δ²`, unrounded (ω² = 1/9, δ = 0.03 → 968.997).
 */
export function millerSampleSize(delta: number, input: MillerPowerInput): number {
  return (millerZ(input) ** 2 * millerVariance(input)) / (delta * delta)
}

/** Options for {@link minimumDetectableDifference}. */
export interface MinimumDetectableDifferenceOptions {
  /** Accuracy p of the model whose hits are compared; sets the hit variance p(1 − p). Default 0.5 (the worst case). */
  accuracy?: number
  /** Assumed correlation ρ of two models' per-item hits. Default 0.5 (Anthropic reports 0.3–0.7 across models). */
  correlation?: number
  /** Design effect: clustered over naive variance of the mean, ≥ 1 (see {@link designEffect}). Default 1. */
  designEffect?: number
  /** Significance α. Default 0.05. */
  alpha?: number
  /** Power. Default 0.8. */
  power?: number
  /** Two-sided (default) or one-sided test. */
  sides?: 1 | 2
}

/** The keys of {@link MinimumDetectableDifferenceOptions}, checked where they are given: a misspelled one is refused by name. */
export const MinimumDetectableDifferenceOptionsSchema = z
  .strictObject({ accuracy: z.number().min(0).max(1), correlation: z.number().min(-1).max(1), designEffect: z.number().min(1).max(1e6), alpha: z.number().gt(0).lt(1), power: z.number().gt(0).lt(1), sides: z.union([z.literal(1), z.literal(2)]) })
  .partial()
true satisfies SameKeys<z.input<typeof MinimumDetectableDifferenceOptionsSchema>, MinimumDetectableDifferenceOptions>

/**
 * Smallest accuracy difference between two models on this set that a paired test
 * would detect with 80% power at α = 0.05 two-sided (Miller 2024 Eq. 10 with binary
 * hits, K = 1, σ² = 0): `MDD = (z_{α/2} + z_β)·√(deff·2p(1 − p)(1 − ρ) / n)`, where
 * ω² = Var(hit_A − hit_B) = 2p(1 − p)(1 − ρ) for two models of accuracy p whose hits
 * correlate ρ. At n = 24, p = 0.7, ρ = 0.5 it is ≈ 0.26: a set this size detects only
 * large changes. In accuracy units (0.26 = 26 percentage points).
 */
export function minimumDetectableDifference(n: number, options: MinimumDetectableDifferenceOptions = {}): number {
  refuseUnknownOptions(MinimumDetectableDifferenceOptionsSchema, options, 'minimumDetectableDifference options')
  refuseOutOfBounds(MinimumDetectableDifferenceOptionsSchema, options, 'minimumDetectableDifference: ')
  const { accuracy = 0.5, correlation = 0.5, designEffect: deff = 1, alpha = 0.05, power = 0.8, sides = 2 } = options
  const omega2 = 2 * accuracy * (1 - accuracy) * (1 - correlation) * Math.max(1, deff)
  return millerMinimumDetectableEffect(n, { omega2, alpha, power, sides })
}

/**
 * Design effect of clustering for a mean: (clustered SE / CLT SE)², floored at 1
 * (Miller 2024: DROP's SE ratio 3.05 is a design effect of 9.3). 1 when fewer than
 * two clusters or no variance.
 */
export function designEffect(scores: readonly number[], clusters: readonly (string | number | null | undefined)[]): number {
  const naive = cltStandardError(scores)
  if (naive === 0) return 1
  const distinct = new Set(clusters.map((c, i) => c ?? `#${i}`)).size
  if (distinct < 2) return 1
  return Math.max(1, (clusteredStandardError(scores, clusters) / naive) ** 2)
}
