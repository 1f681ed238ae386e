/**
 * Which number a threshold key bounds: one table, read by the Vitest threshold tests,
 * the reporter's marks and the GitHub job summary. A key not in the table must name
 * one of the suite's custom metrics (`result.metrics`); anything else fails closed.
 */
import type { EvalResultJson } from '../result/result.ts'
import { withStopEarly } from './sequential/verdict.ts'
import { thresholdVerdict, type Threshold, type ThresholdVerdict } from './verdict.ts'

/** A metric a threshold can bound. */
export interface ThresholdMetric {
  /** How the report names it (`balanced accuracy`). */
  label: string
  /** The interval the metric lives in; a bound outside it is refused when the suite is declared. */
  range: readonly [number, number]
  /** The measured value; `null` when not measurable (e.g. one ordering). */
  read: (result: EvalResultJson) => number | null | undefined
  /** Measurable only with more than one ordering (a threshold on it is refused with `debias: 'none'`). */
  needsOrderings?: boolean
}

const UNIT: readonly [number, number] = [0, 1]

/** The worst (lowest) per-criterion balanced accuracy, or `undefined` when there is none. Own keys only. */
export function worstCriterion(perCriterion: Readonly<Record<string, number>>): [key: string, value: number] | undefined {
  let worst: [string, number] | undefined
  for (const key of Object.keys(perCriterion).sort()) {
    const value = perCriterion[key]!
    if (worst === undefined || value < worst[1]) worst = [key, value]
  }
  return worst
}

/** The built-in threshold keys, in the order their tests are declared. */
export const THRESHOLD_METRICS: ReadonlyMap<string, ThresholdMetric> = new Map<string, ThresholdMetric>([
  ['balancedAccuracy', { label: 'balanced accuracy', range: UNIT, read: (r) => r.balancedAccuracy }],
  ['orderConsistency', { label: 'order consistency', range: UNIT, read: (r) => r.orderConsistency, needsOrderings: true }],
  ['accuracy', { label: 'accuracy', range: UNIT, read: (r) => r.accuracy }],
  ['perCriterion', { label: 'worst criterion (balanced accuracy)', range: UNIT, read: (r) => worstCriterion(r.perCriterion)?.[1] ?? null }],
  // The order-robustness panel (null, so failing, when not measured).
  ['circularAccuracy', { label: 'circular accuracy', range: UNIT, read: (r) => r.circularAccuracy, needsOrderings: true }],
  ['orderingAccuracy', { label: 'ordering accuracy', range: UNIT, read: (r) => r.orderingAccuracy, needsOrderings: true }],
  ['slotSensitivityGap', { label: 'slot sensitivity gap', range: UNIT, read: (r) => r.slotSensitivityGap, needsOrderings: true }],
  ['cramersV', { label: "slot bias (Cramér's V)", range: UNIT, read: (r) => r.slotBias?.cramersV ?? null, needsOrderings: true }],
  ['ckld', { label: 'CKLD', range: [0, Infinity], read: (r) => r.ckld, needsOrderings: true }],
  ['positionConsistency', { label: 'position consistency (pairs)', range: UNIT, read: (r) => r.pairwise?.positionConsistency ?? null, needsOrderings: true }],
  ['preferenceFairness', { label: 'preference fairness (pairs)', range: [-1, 1], read: (r) => r.pairwise?.preferenceFairness ?? null, needsOrderings: true }],
  ['firstShownRate', { label: 'first-shown rate (pairs)', range: UNIT, read: (r) => r.pairwise?.firstShownRate ?? null, needsOrderings: true }],
  ['repetitionStability', { label: 'repetition stability (pairs)', range: UNIT, read: (r) => r.pairwise?.repetitionStability ?? null, needsOrderings: true }],
])

/** The built-in threshold keys, in declaration order. */
export const THRESHOLD_KEYS: readonly string[] = [...THRESHOLD_METRICS.keys()]

/** Whether `key` bounds a built-in metric. */
export function isBuiltinThreshold(key: string): boolean {
  return THRESHOLD_METRICS.has(key)
}

/** How the report names a threshold key (a custom metric keeps its own name). */
export function thresholdLabel(key: string): string {
  return THRESHOLD_METRICS.get(key)?.label ?? key
}

/**
 * The verdict of one threshold on one result: a built-in key reads its metric, any
 * other key the custom metric of that name (own property of `result.metrics`). An
 * unknown key or a missing result fails with a reason. A run that stopped early is
 * decided by its anytime-valid verdicts (docs/stopping-early.md).
 */
export function evaluateThreshold(result: EvalResultJson | undefined, key: string, threshold: Threshold): ThresholdVerdict {
  if (!result) return { ...thresholdVerdict(key, threshold, null), reason: 'the suite was not scored' }
  return withStopEarly(result, key, threshold, fixedSampleVerdict(result, key, threshold))
}

/** The verdict of the measured value alone. */
function fixedSampleVerdict(result: EvalResultJson, key: string, threshold: Threshold): ThresholdVerdict {
  const builtin = THRESHOLD_METRICS.get(key)
  if (builtin) return thresholdVerdict(key, threshold, builtin.read(result))
  const metrics = result.metrics ?? {}
  if (Object.hasOwn(metrics, key)) return thresholdVerdict(key, threshold, metrics[key])
  return {
    ...thresholdVerdict(key, threshold, null),
    reason: `unknown threshold "${key}": neither a built-in metric (${THRESHOLD_KEYS.join(', ')}) nor one of the suite's custom metrics`,
  }
}

/** Every threshold's verdict, built-in keys first in declaration order, then the others in the order given. */
export function evaluateThresholds(
  result: EvalResultJson | undefined,
  thresholds: Readonly<Record<string, Threshold | undefined>> | undefined,
): ThresholdVerdict[] {
  const entries = Object.entries(thresholds ?? {}).filter((entry): entry is [string, Threshold] => entry[1] !== undefined)
  const order = (key: string) => (THRESHOLD_METRICS.has(key) ? THRESHOLD_KEYS.indexOf(key) : THRESHOLD_KEYS.length)
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => order(a.entry[0]) - order(b.entry[0]) || a.i - b.i)
    .map(({ entry: [key, threshold] }) => evaluateThreshold(result, key, threshold))
}
