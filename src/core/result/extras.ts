/** The optional `statistics` of a result JSON as a reader finds it: intervals, majority baseline, verdicts. */
import { isFiniteNumber, isObject } from '../support/guards.ts'
import type { EvalResultJson } from './result.ts'

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

/**
 * Read the result JSON's `statistics` key (no other). Intervals may be `[lo, hi]` or
 * `{ lower, upper }`, the baseline a number or an object, verdicts strings or
 * `{ message }`: anything else is ignored rather than guessed at.
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
