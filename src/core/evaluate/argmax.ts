/** Picking the winner of a probability vector, and turning summed totals back into probabilities. */

/**
 * Relative tolerance under which two values count as tied: a tie is no answer. Per-id
 * sums accumulate in different orders, so an exact `===` tie is fragile (docs/design.md#ties).
 */
export const TIE_TOLERANCE = 1e-12

/**
 * The largest top-two gap, in probability, under which a pick counts as a near-tie: a pick that
 * rounding on another CPU kind could swap (fp32 letter probabilities differ between AVX2 and
 * AVX-512 VNNI kernels by under 1e-5; 8-bit and 4-bit kernels by up to ~4e-3, which is not rounding).
 */
export const NEAR_TIE_MARGIN = 1e-4

/** Whether the top two of a probability vector (summing to `1 / weight`) are within {@link NEAR_TIE_MARGIN} yet not tied. */
export function isNearTie(values: ArrayLike<number>, weight = 1): boolean {
  let first = -Infinity
  let second = -Infinity
  for (let i = 0; i < values.length; i++) {
    const v = values[i]! * weight
    if (v > first) [first, second] = [v, first]
    else if (v > second) second = v
  }
  return first - second < NEAR_TIE_MARGIN
}

/** The lowest value still tied with the maximum `max`. */
function tieFloor(max: number, tolerance: number): number {
  return max - Math.abs(max) * tolerance
}

/** Indices of every value within a relative `tolerance` of the maximum, ascending: one index, or a tie. */
export function maximalSlots(values: ArrayLike<number>, tolerance = TIE_TOLERANCE): number[] {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  const floor = tieFloor(max, tolerance)
  const out: number[] = []
  for (let i = 0; i < values.length; i++) if (values[i]! >= floor) out.push(i)
  return out
}

/** Whether `slot` holds a maximum of `values`, within a relative `tolerance`. */
export function isMaximalSlot(values: ArrayLike<number>, slot: number, tolerance = TIE_TOLERANCE): boolean {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  return values[slot]! >= tieFloor(max, tolerance)
}

/** Index of the first maximum; with a tolerance, the first value within `tol·max` of the maximum. */
export function argmaxFirst(values: ArrayLike<number>, tolerance = 0): number {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  const floor = tieFloor(max, tolerance)
  for (let i = 0; i < values.length; i++) if (values[i]! >= floor) return i
  return 0
}

/** exp(x − max), renormalised: a normalised geometric mean when `values` are mean log-probabilities. */
export function softmax(values: ArrayLike<number>): number[] {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  const out = Array.from(values, (v) => Math.exp(v - max))
  const sum = out.reduce((s, v) => s + v, 0)
  return out.map((v) => v / sum)
}

/** `values / sum(values)`. */
export function normalise(values: ArrayLike<number>): number[] {
  let sum = 0
  for (let i = 0; i < values.length; i++) sum += values[i]!
  return Array.from(values, (v) => v / sum)
}
