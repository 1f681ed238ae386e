/**
 * Renormalising probability vectors without overflow: `[1.7e308, 1.7e308, 1.7e308]` sums to
 * Infinity, so a vector is divided by its maximum first (entries in [0, 1], sum in [1, length]).
 */

/** `values` divided by their maximum, and the sum of the result (in [1, length]). `max` must be > 0 and finite. */
export function scaledByMax(values: ArrayLike<number>): { vector: number[]; sum: number } {
  let max = 0
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  const vector = Array.from(values, (v) => v / max)
  let sum = 0
  for (const v of vector) sum += v
  return { vector, sum }
}

/** `values` renormalised to sum to 1, dividing by the maximum first: `[1.7e308]×3` is uniform, `[5e-324, 0, 0]` one-hot. */
export function renormalise(values: ArrayLike<number>): number[] {
  const { vector, sum } = scaledByMax(values)
  return vector.map((v) => v / sum)
}

/**
 * Probabilities from log-probabilities, the log-sum-exp way: subtract the maximum
 * before `exp`, so `[-2000, -2001]` reads as `[0.73, 0.27]` instead of `[0, 0]`, and
 * `[1000, 999]` does not overflow. Entries of `-Infinity` are probability 0. Returns
 * unnormalised weights with the largest at 1; `null` when no entry is finite.
 */
export function expShifted(logprobs: readonly number[]): number[] | null {
  let max = -Infinity
  for (const lp of logprobs) if (Number.isFinite(lp) && lp > max) max = lp
  if (max === -Infinity) return null
  return logprobs.map((lp) => (Number.isFinite(lp) ? Math.exp(lp - max) : 0))
}
