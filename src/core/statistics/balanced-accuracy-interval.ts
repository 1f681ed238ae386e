/**
 * The balanced-accuracy interval: one method on all data, MOVER-Wilson. Balanced accuracy is
 * the mean of K class recalls, independent proportions estimated from disjoint decisions.
 * MOVER ("method of variance estimates recovery", Zou & Donner, Stat. Med. 27:1693–1702, 2008;
 * Newcombe, Stat. Med. 17:873–890, 1998, for a difference of two) combines each recall's
 * Wilson (1927) score bounds l_c ≤ p̂_c ≤ u_c into bounds for Σ w_c p_c (here w_c = 1/K):
 *
 *   L = Σ w_c p̂_c − √(Σ w_c² (p̂_c − l_c)²),   U = Σ w_c p̂_c + √(Σ w_c² (u_c − p̂_c)²).
 *
 * Unlike the percentile bootstrap it never collapses at 0/n or n/n (Wilson's bounds do not), so
 * nothing switches at the boundary, and it is monotone: one more hit in a class never lowers L,
 * one more miss never raises it (Wilson's lower bound rises with hits and falls with misses, and
 * the square root moves L by at most the change in p̂_c).
 */
import { wilsonBounds } from '../math/binomial.ts'

/** Hits and decisions of one gold class. */
export type ClassCount = readonly [hits: number, total: number]

/**
 * MOVER-Wilson bounds for the mean of the class recalls `hits / total` at `level`. With a
 * design effect > 1 (decisions sharing evidence, `group_id`) each class counts `total / deff`
 * effective decisions (Kish's effective sample size, as Korn & Graubard 1998 do for Wilson-type
 * intervals on clustered data). No class: the vacuous [0, 1].
 */
export function balancedAccuracyBounds(counts: readonly ClassCount[], level: number, designEffect = 1): { lower: number; upper: number } {
  const k = counts.length
  if (k === 0) return { lower: 0, upper: 1 }
  const deff = Math.max(1, designEffect)
  let mean = 0
  let below = 0
  let above = 0
  for (const [hits, total] of counts) {
    const p = total > 0 ? hits / total : 0
    const { lower, upper } = total > 0 ? wilsonBounds(p, total / deff, level) : { lower: 0, upper: 1 }
    mean += p / k
    below += ((p - lower) / k) ** 2
    above += ((upper - p) / k) ** 2
  }
  // Rounding only: the bounds hold the estimate and stay in [0, 1].
  return { lower: Math.max(0, Math.min(mean, mean - Math.sqrt(below))), upper: Math.min(1, Math.max(mean, mean + Math.sqrt(above))) }
}
