/**
 * Small pure helpers shared by the matchers, the threshold tests and the reporter,
 * so a threshold test, its failure message and the report mark always agree.
 */
import type { EvalResult, EvalResultJson } from '../../core/index.ts'
import { worstCriterion } from '../../core/thresholds/metrics.ts'
import { BOUND_EPSILON, formatBound, formatThreshold, meetsLowerBound, type Threshold } from '../../core/thresholds/verdict.ts'
import { lettersLine, metricValue, percent } from '../../report/format.ts'

/** Whether a measured value meets a lower bound (the core threshold verdict's rule). `null` never does. */
export const meets = meetsLowerBound

export { BOUND_EPSILON, formatBound, worstCriterion }

/** A measured value: three decimals, or `n/a`. */
export function formatValue(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(3) : 'n/a'
}

export { percent }

/** The letters picked, `A:100% B:0% …`, in letter order: the evidence a position prior leaves. */
export function formatLetters(distribution: Readonly<Record<string, number>> | undefined): string {
  return lettersLine(distribution, ' ')
}

/**
 * The mark the report puts beside a thresholded metric (`✓ ≥ 0.70`, `✗ < 0.80`,
 * `✓ ≤ 0.10`, `✗ in [-0.05, 0.05]`) for the one gate's verdict on it (`passed`): the
 * verdict the threshold test renders too. Given the metric's `key`, the bound is written
 * in the unit the report shows that metric in (`✓ ≥ 70.0%`, `✗ ≤ 35.0 pp`). A check the gate
 * found not measured reads `✗ ≥ 0.90 not measured`, never as a value below its bound.
 */
export function thresholdMark(passed: boolean, threshold: Threshold, key?: string, notMeasured = false, byValue = true): string {
  const bound = key === undefined ? formatBound : (n: number) => metricValue(key, n)
  if (notMeasured) return `✗ ${formatThreshold(threshold, bound)} not measured`
  // Failed by another rule of the gate (the failure rate, an early stop's bound), not by its value: the test failed.
  if (!passed && !byValue) return `✗ ${formatThreshold(threshold, bound)} test failed`
  if (typeof threshold === 'number') return passed ? `✓ ≥ ${bound(threshold)}` : `✗ < ${bound(threshold)}`
  return `${passed ? '✓' : '✗'} ${formatThreshold(threshold, bound)}`
}

/** The JSON-safe part of a result that goes into task meta: everything but the per-decision records. */
export function summarise(result: EvalResult): EvalResultJson {
  const { records: _records, ...json } = result
  return json
}

/** A file-name-safe slug of a suite name: `Support triage (v2)` → `support-triage-v2`. */
export function slug(name: string): string {
  const out = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return out || 'suite'
}
