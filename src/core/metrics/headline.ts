/** The headline metrics over plain arrays: accuracy, balanced accuracy, order consistency, letters, ECE, Brier. */
import { dict } from '../support/dict.ts'

/** Share of predictions equal to gold (a `null` prediction, a tie, is wrong). `accuracy([], [])` is 0. */
export function accuracy(gold: readonly string[], predictions: readonly (string | null)[]): number {
  if (gold.length === 0) return 0
  let hits = 0
  for (let i = 0; i < gold.length; i++) if (gold[i] === predictions[i]) hits++
  return hits / gold.length
}

/** Recall of each class present in gold: `#(gold = c ∧ pred = c) / #(gold = c)`. */
export function recallByClass(gold: readonly string[], predictions: readonly (string | null)[]): Map<string, number> {
  const seen = new Map<string, [hits: number, total: number]>()
  for (let i = 0; i < gold.length; i++) {
    const counts = seen.get(gold[i]!) ?? [0, 0]
    counts[1]++
    if (predictions[i] === gold[i]) counts[0]++
    seen.set(gold[i]!, counts)
  }
  return new Map([...seen].map(([label, [hits, total]]) => [label, hits / total]))
}

/**
 * Balanced accuracy (Brodersen et al. 2010): the mean recall over the distinct gold labels (sklearn's
 * `balanced_accuracy_score`, unadjusted). A constant predictor scores exactly 1/K
 * for K classes present in gold, whatever the class balance.
 */
export function balancedAccuracy(gold: readonly string[], predictions: readonly (string | null)[]): number {
  const recalls = [...recallByClass(gold, predictions).values()]
  return recalls.length === 0 ? 0 : mean(recalls)
}

/**
 * Balanced accuracy inside each group, then the plain mean over groups. With the
 * criterion key as the group, this is the mean of `perCriterion`; unlike the pooled
 * figure it never merges two criteria that share option ids (yes/no).
 */
export function meanGroupBalancedAccuracy(
  gold: readonly string[],
  predictions: readonly (string | null)[],
  groups: readonly string[],
): number {
  const perGroup = balancedAccuracyByGroup(gold, predictions, groups)
  const values = Object.values(perGroup)
  return values.length === 0 ? 0 : mean(values)
}

/** Balanced accuracy within each group, keyed by group (keys sorted). */
export function balancedAccuracyByGroup(
  gold: readonly string[],
  predictions: readonly (string | null)[],
  groups: readonly string[],
): Record<string, number> {
  const byGroup = new Map<string, [string[], (string | null)[]]>()
  groups.forEach((group, i) => {
    const entry = byGroup.get(group) ?? [[], []]
    entry[0].push(gold[i]!)
    entry[1].push(predictions[i]!)
    byGroup.set(group, entry)
  })
  const out = dict<number>()
  for (const group of [...byGroup.keys()].sort()) {
    const [g, p] = byGroup.get(group)!
    out[group] = balancedAccuracy(g, p)
  }
  return out
}

/** Expected accuracy of a uniform random guesser: the mean of 1/options over rows. */
export function chanceAccuracy(optionCounts: readonly number[]): number {
  return optionCounts.length === 0 ? 0 : mean(optionCounts.map((k) => 1 / k))
}

/**
 * Order consistency: the share of decisions whose per-ordering pick (an option id)
 * is the same under every ordering scored. `null` when no decision was scored under
 * more than one ordering, since then nothing could expose a position prior.
 */
export function orderConsistency(picks: readonly (readonly (string | null)[])[]): number | null {
  if (picks.length === 0 || picks.every((p) => p.length <= 1)) return null
  let consistent = 0
  for (const p of picks) if (isConsistent(p)) consistent++
  return consistent / picks.length
}

/** Whether every pick equals the first; a tied pick (`null`, no answer) is never consistent. */
export function isConsistent(picks: readonly (string | null)[]): boolean {
  return picks.every((pick) => pick !== null && pick === picks[0])
}

/**
 * Share of all per-ordering picks that landed on each letter. Every letter in
 * `letters` is a key, zero entries included, so histograms of runs compare key by key.
 */
export function letterDistribution(
  counts: readonly number[],
  letters: readonly string[],
): Record<string, number> {
  const total = counts.reduce((sum, c) => sum + c, 0)
  const out = dict<number>()
  letters.forEach((letter, i) => {
    out[letter] = total === 0 ? 0 : (counts[i] ?? 0) / total
  })
  return out
}

/** Number of equal-width bins {@link expectedCalibrationError} uses by default. */
export const ECE_BINS = 10

/** One equal-width confidence bin of a reliability diagram. */
export interface ReliabilityBin {
  /** Lower edge (exclusive, except for the first bin). */
  lower: number
  /** Upper edge (inclusive). */
  upper: number
  /** Rows whose confidence fell in the bin. */
  count: number
  hits: number
  /** Hits / count, or `null` for an empty bin. */
  accuracy: number | null
  /** Mean confidence in the bin, or `null` for an empty bin. */
  confidence: number | null
}

/** Top-label reliability bins (Guo et al. 2017): right-closed and equal-width, as {@link expectedCalibrationError} bins. */
export function calibrationBins(confidences: readonly number[], hits: readonly boolean[], bins = ECE_BINS): ReliabilityBin[] {
  const out: ReliabilityBin[] = Array.from({ length: bins }, (_, k) => ({ lower: k / bins, upper: (k + 1) / bins, count: 0, hits: 0, accuracy: null, confidence: null }))
  const confSum = new Array<number>(bins).fill(0)
  for (let i = 0; i < confidences.length; i++) {
    const k = binOf(confidences[i]!, bins)
    out[k]!.count++
    confSum[k]! += confidences[i]!
    if (hits[i]) out[k]!.hits++
  }
  out.forEach((bin, k) => {
    if (bin.count === 0) return
    bin.accuracy = bin.hits / bin.count
    bin.confidence = confSum[k]! / bin.count
  })
  return out
}

/** ECE from reliability bins: Σ (count/n)·|accuracy − mean confidence|; `null` when the bins are empty. */
export function eceFromBins(bins: readonly ReliabilityBin[]): number | null {
  const n = bins.reduce((s, b) => s + b.count, 0)
  if (n === 0) return null
  return bins.reduce((s, b) => (b.count === 0 ? s : s + (b.count / n) * Math.abs(b.accuracy! - b.confidence!)), 0)
}

/**
 * Expected calibration error, top-label, equal-width bins (Guo et al., ICML 2017;
 * Naeini et al., AAAI 2015). Bins are right-closed: a confidence c goes to the
 * first bin k with `c <= (k + 1) / bins`, so 0.8 lands in (0.7, 0.8] and 0 in the
 * first bin. ECE = Σ_k (|B_k| / n) · |acc(B_k) − conf(B_k)|. `null` for no rows.
 */
export function expectedCalibrationError(confidences: readonly number[], hits: readonly boolean[], bins = ECE_BINS): number | null {
  return eceFromBins(calibrationBins(confidences, hits, bins))
}

/** Right-closed bin index of a confidence in [0, 1] (see {@link expectedCalibrationError}). */
export function binOf(confidence: number, bins = ECE_BINS): number {
  for (let k = 0; k < bins - 1; k++) if (confidence <= (k + 1) / bins) return k
  return bins - 1
}

/**
 * Multi-class Brier score (Brier 1950), not halved: the mean over rows of
 * Σ_k (p_k − y_k)². 0 is certain and right, 2 certain and wrong, and a uniform
 * guess over k options scores 1 − 1/k. `null` for no rows.
 */
export function brierScore(probabilities: readonly (readonly number[])[], goldIndex: readonly number[]): number | null {
  if (probabilities.length === 0) return null
  let total = 0
  probabilities.forEach((p, row) => {
    for (let k = 0; k < p.length; k++) {
      const d = p[k]! - (k === goldIndex[row] ? 1 : 0)
      total += d * d
    }
  })
  return total / probabilities.length
}

/** Arithmetic mean; 0 for an empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
}
