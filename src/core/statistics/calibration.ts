/** When binned ECE can be trusted: the noise floor of a calibrated model (Roelofs et al., AISTATS 2022) and HELM's 300-row rule. */
import { quantileSorted } from '../math/bootstrap.ts'
import { mulberry32 } from '../math/random.ts'
import { binOf, ECE_BINS } from '../metrics/headline.ts'

/** Rows below which binned ECE is not reported as trustworthy: 300 (HELM's `ece_10_bin` note). */
export const ECE_MIN_ROWS = 300

/** What a perfectly calibrated model with the same confidences would score. */
export interface EceNoiseFloor {
  /** Mean ECE over the simulations. */
  mean: number
  /** 95th percentile: an observed ECE below it is indistinguishable from perfect calibration. */
  p95: number
  simulations: number
}

/**
 * Monte-Carlo ECE of a perfectly calibrated model (Roelofs et al.,
 * AISTATS 2022): keep the observed confidences, draw each hit ~ Bernoulli(confidence),
 * compute binned ECE exactly as `expectedCalibrationError` does (same right-closed
 * bins). Seeded. With all confidences 0.75 and n = 24 the mean tends to
 * the closed form E|X/24 − 0.75| = 0.0695.
 */
export function eceNoiseFloor(
  confidences: readonly number[],
  { seed = 0, simulations = 1000, bins = ECE_BINS }: { seed?: number; simulations?: number; bins?: number } = {},
): EceNoiseFloor {
  const random = mulberry32(seed)
  const values: number[] = []
  const n = confidences.length
  // Bins and per-bin confidence sums do not change between simulations; only the hits do.
  const binOfRow = Int32Array.from(confidences, (c) => binOf(c, bins))
  const count = new Float64Array(bins)
  const confSum = new Float64Array(bins)
  confidences.forEach((c, i) => {
    count[binOfRow[i]!]!++
    confSum[binOfRow[i]!]! += c
  })
  // Typed rows and a branch-free count: the draw (random() < confidence) is unpredictable,
  // so a branch per row mispredicts half the time (2× slower at 500 × 10^5 draws).
  const confidence = Float64Array.from(confidences)
  const hitSum = new Int32Array(bins)
  for (let s = 0; s < simulations; s++) {
    hitSum.fill(0)
    for (let i = 0; i < n; i++) hitSum[binOfRow[i]!]! += +(random() < confidence[i]!)
    let ece = 0
    for (let k = 0; k < bins; k++) if (count[k]! > 0) ece += (count[k]! / n) * Math.abs(hitSum[k]! / count[k]! - confSum[k]! / count[k]!)
    values.push(ece)
  }
  values.sort((x, y) => x - y)
  return { mean: values.reduce((s, x) => s + x, 0) / Math.max(1, values.length), p95: quantileSorted(values, 0.95), simulations }
}

/** The ECE warning rule's verdict. */
export interface EceReliability {
  /** True only when n ≥ {@link ECE_MIN_ROWS} and the observed ECE exceeds the noise floor's 95th percentile. */
  reliable: boolean
  /** Why not, in one phrase; `null` when reliable. */
  reason: string | null
  /** The simulated floor. */
  floor: EceNoiseFloor
}

/**
 * ECE noise-floor rule (Roelofs et al. 2022): binned ECE is reported as reliable only when there are at
 * least 300 rows (HELM, Liang et al. 2023) *and* the observed ECE is above what a perfectly calibrated
 * model with the same confidences scores 95% of the time. Otherwise the report points
 * to the Brier score (Brier 1950), a proper scoring rule without bins.
 */
export function eceReliability(
  ece: number,
  confidences: readonly number[],
  options: { seed?: number; simulations?: number; bins?: number } = {},
): EceReliability {
  const floor = eceNoiseFloor(confidences, options)
  const n = confidences.length
  let reason: string | null = null
  if (n < ECE_MIN_ROWS) reason = `n = ${n} < ${ECE_MIN_ROWS}: binned ECE is mostly noise at this size`
  else if (ece <= floor.p95)
    reason = `ECE ${ece.toFixed(3)} is within the noise floor of a perfectly calibrated model (95th pct ${floor.p95.toFixed(3)})`
  return { reliable: reason === null, reason, floor }
}
