/**
 * Numbers the HTML report derives again from a result JSON and its records: the
 * optional intervals, baseline and verdicts, reliability bins, the letter shares a
 * position-blind reader would produce, and chance per criterion.
 */
import { dict } from '../core/support/dict.ts'
import { binOf, ECE_BINS } from '../core/metrics/headline.ts'
import type { DecisionRecord, EvalResultJson } from '../core/result/result.ts'
import { isFiniteNumber, isObject } from './html-format.ts'
import type { ReliabilityBinView } from './svg.ts'
import { largest } from '../core/support/spreadless.ts'

/** A `[lower, upper]` interval, however the JSON spelled it. */
export type Range = readonly [lower: number, upper: number]

/** The optional `statistics` a result JSON may carry (absent under `--no-statistics`). Every field may be absent. */
export interface ReportExtras {
  /** Intervals of the headline numbers, and their confidence level when the JSON says. */
  intervals: { accuracy: Range | null; balancedAccuracy: Range | null; orderConsistency: Range | null; level: number | null }
  /** Majority-class baseline: its accuracy and balanced accuracy, when given. */
  majorityBaseline: { accuracy: number | null; balancedAccuracy: number | null } | null
  /** Verdict sentences by headline (`accuracy`, `balancedAccuracy`, `orderConsistency`, or `overall`). */
  verdicts: Record<string, string>
}

/** One bin of the reliability diagram. */
export interface ReliabilityBin extends ReliabilityBinView {
  /** Hits in the bin. */
  hits: number
}

export const LEVEL_DEFAULT_TEXT = 'interval'

/**
 * Read the optional intervals, majority baseline and verdicts from a result JSON's
 * `statistics` key (the one name `EvalResult`, `--json-out` and the `statistics` option
 * use; no other key is read).
 * Accepts `[lo, hi]` arrays and `{ lower, upper }` objects (the statistics module's
 * `Interval`), a baseline as a number (its accuracy) or an object, and verdicts as
 * strings or `{ message }` objects; anything else is ignored rather than guessed at.
 */
export function readExtras(result: EvalResultJson): ReportExtras {
  const statistics = (result as unknown as Record<string, unknown>).statistics
  const raw: Record<string, unknown> = isObject(statistics) ? statistics : {}
  const intervals = isObject(raw.intervals) ? raw.intervals : {}
  let level = typeof intervals.level === 'number' ? intervals.level : null
  const range = (value: unknown): Range | null => {
    if (Array.isArray(value) && value.length === 2 && value.every(isFiniteNumber)) return [value[0] as number, value[1] as number]
    if (isObject(value) && isFiniteNumber(value.lower) && isFiniteNumber(value.upper)) {
      if (level === null && isFiniteNumber(value.level)) level = value.level
      return [value.lower, value.upper]
    }
    return null
  }
  const extras: ReportExtras = {
    intervals: {
      accuracy: range(intervals.accuracy),
      balancedAccuracy: range(intervals.balancedAccuracy),
      orderConsistency: range(intervals.orderConsistency),
      level: null,
    },
    majorityBaseline: null,
    verdicts: {},
  }
  extras.intervals.level = level
  const majority = raw.majorityBaseline
  if (isFiniteNumber(majority)) extras.majorityBaseline = { accuracy: majority, balancedAccuracy: null }
  else if (isObject(majority))
    extras.majorityBaseline = {
      accuracy: isFiniteNumber(majority.accuracy) ? majority.accuracy : null,
      balancedAccuracy: isFiniteNumber(majority.balancedAccuracy) ? majority.balancedAccuracy : null,
    }
  const verdictText = (value: unknown): string | null =>
    typeof value === 'string' && value !== '' ? value : isObject(value) && typeof value.message === 'string' && value.message !== '' ? value.message : null
  if (typeof raw.verdict === 'string' && raw.verdict !== '') extras.verdicts.overall = raw.verdict
  if (isObject(raw.verdicts))
    for (const [key, value] of Object.entries(raw.verdicts)) {
      const text = verdictText(value)
      if (text !== null) extras.verdicts[key] = text
    }
  return extras
}

/**
 * Reliability bins from records: confidence = the largest final probability, hit =
 * prediction equals gold, {@link ECE_BINS} equal-width right-closed bins (`binOf`,
 * the same binning as the run's ECE).
 */
export function reliabilityBins(records: readonly DecisionRecord[], bins = ECE_BINS): ReliabilityBin[] {
  const out: ReliabilityBin[] = Array.from({ length: bins }, (_, k) => ({
    lower: k / bins,
    upper: (k + 1) / bins,
    count: 0,
    hits: 0,
    accuracy: null,
    confidence: null,
  }))
  const confSum = new Array<number>(bins).fill(0)
  for (const record of records) {
    const confidence = largest(Object.values(record.probabilities))
    const k = binOf(confidence, bins)
    out[k]!.count++
    confSum[k]! += confidence
    if (record.prediction === record.gold) out[k]!.hits++
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
 * The letter shares a position-blind answerer would produce: each ordering of a
 * k-option decision spreads 1/k over letters A..(k-th letter), weighted by the
 * orderings scored. With one option count throughout this is 1/k per letter; with
 * mixed counts the late letters get less, as they must. Without records: 1/letters.
 */
export function expectedLetterShares(letters: readonly string[], records?: readonly DecisionRecord[] | null): Record<string, number> {
  const out = dict<number>()
  if (!records || records.length === 0) {
    for (const letter of letters) out[letter] = letters.length === 0 ? 0 : 1 / letters.length
    return out
  }
  const weight = new Array<number>(letters.length).fill(0)
  let total = 0
  for (const record of records) {
    const k = Object.keys(record.probabilities).length
    const orderings = Math.max(1, record.picks.length)
    if (k === 0) continue
    total += orderings
    for (let i = 0; i < Math.min(k, letters.length); i++) weight[i]! += orderings / k
  }
  letters.forEach((letter, i) => (out[letter] = total === 0 ? 0 : weight[i]! / total))
  return out
}

/** Balanced accuracy of a uniform guesser per criterion: the mean of 1/options over its records. */
export function chanceByCriterion(records: readonly DecisionRecord[]): Record<string, number> {
  const sums = new Map<string, [number, number]>()
  for (const record of records) {
    const k = Object.keys(record.probabilities).length
    if (k === 0) continue
    const entry = sums.get(record.criterion) ?? [0, 0]
    entry[0] += 1 / k
    entry[1]++
    sums.set(record.criterion, entry)
  }
  return dict([...sums].map(([key, [sum, count]]) => [key, sum / count]))
}
