/**
 * The baseline gate's statistics: the exact one-sided McNemar test of "regressed" (McNemar
 * 1947; Fagerland et al. 2013; docs/statistics.md#baselines-and-verdicts) on top of
 * `mcnemarExact`, and the power check. Pure; the Vitest layer's baseline gate calls it.
 */
import { mcnemarExact } from '../math/binomial.ts'

/** Outcome of {@link mcnemarRegression}. */
export interface McNemarRegression {
  /** Discordant pairs against the new run: consistent at baseline, inconsistent now ("newly broken"). */
  worse: number
  /** Discordant pairs in its favour: inconsistent at baseline, consistent now ("newly fixed"). */
  better: number
  /** One-sided exact p-value for "the new run is worse": `P(Bin(worse + better, ½) ≥ worse)`; 1 with no discordant pair. */
  p: number
}

/**
 * Exact one-sided McNemar test of H1 "regressed" on paired binary outcomes
 * (McNemar 1947). Only the discordant pairs carry
 * information; under H0 each is equally likely to go either way.
 */
export function mcnemarRegression(worse: number, better: number): McNemarRegression {
  // mcnemarExact(b, c).pBGreater = P(X ≥ b), X ~ Bin(b + c, ½): b = "worse" is the side H1 favours.
  return { worse, better, p: mcnemarExact(worse, better).pBGreater }
}

/**
 * The fewest discordant pairs, all in one direction, that can reach `p < alpha` in the exact McNemar (1947) test:
 * the smallest m with `2^-m < alpha` (5 at alpha 0.05, since 2^-4 = 0.0625).
 * A drop smaller than this many decisions can never be called significant.
 */
export function minimumDetectableDiscordant(alpha: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`)
  let m = 1
  while (Math.pow(2, -m) >= alpha) m++
  return m
}

/** What a set of `n` decisions can detect at `alpha`, for a drop of `drop` (a share of n). */
export interface PowerCheck {
  /** Whether the drop asked for could ever be significant on this set. */
  detectable: boolean
  /** Decisions that must flip (net) for the drop asked for: `ceil(drop · n)`. */
  decisionsForDrop: number
  /** The p-value if all of those flipped one way and none back: `2^-decisionsForDrop`. */
  bestCaseP: number
  /** Fewest one-way flips that can reach `p < alpha` ({@link minimumDetectableDiscordant}). */
  minimumFlips: number
  /** That minimum as a share of n: the smallest drop in order consistency this set can detect. */
  minimumDetectableDrop: number
}

/**
 * Power check for the baseline gate's exact McNemar (1947) test (report "no detectable regression" only
 * together with what could have been detected; docs/statistics.md#minimum-detectable-difference). The
 * best case for the test is every flip going the bad way; if even that cannot reach
 * `p < alpha` for the configured drop, the set is too small to detect it. A drop can
 * also need more flips than there were consistent decisions at baseline.
 */
export function powerCheck(n: number, baselineConsistent: number, drop: number, alpha: number): PowerCheck {
  const minimumFlips = minimumDetectableDiscordant(alpha)
  // A share times n is not always an integer in floating point (0.1 · 30 = 3.0000000000000004).
  const decisionsForDrop = Math.max(1, Math.ceil(drop * n - 1e-9))
  const bestCaseP = Math.pow(2, -decisionsForDrop)
  return {
    detectable: decisionsForDrop >= minimumFlips && baselineConsistent >= minimumFlips,
    decisionsForDrop,
    bestCaseP,
    minimumFlips,
    minimumDetectableDrop: n > 0 ? minimumFlips / n : Infinity,
  }
}
