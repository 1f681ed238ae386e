/**
 * Small pure helpers shared by the matchers, the threshold tests and the reporter,
 * so a threshold test, its failure message and the report mark always agree.
 */
import type { EvalResult, EvalResultJson } from '../core/index.ts'

/**
 * Floating-point slack for "value ≥ bound". Metrics are ratios of small integers
 * (0.7 may come out as 0.6999999999999998); a bound a user wrote as 0.7 must pass
 * for a measured 7/10.
 */
export const BOUND_EPSILON = 1e-9

/** Whether a measured value meets a lower bound. `null` (not measurable) never does. */
export function meets(value: number | null | undefined, bound: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= bound - BOUND_EPSILON
}

/** A bound as written in marks and messages: two decimals, more only when needed (0.875). */
export function formatBound(bound: number): string {
  const two = bound.toFixed(2)
  return Number(two) === bound ? two : String(Number(bound.toFixed(4)))
}

/** A measured value: three decimals, or `n/a`. */
export function formatValue(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(3) : 'n/a'
}

/** A share as a percentage with one decimal. */
export function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`
}

/** The letters picked, `A:100% B:0% …`, in letter order: the evidence a position prior leaves. */
export function formatLetters(distribution: Readonly<Record<string, number>> | undefined): string {
  if (!distribution) return 'n/a'
  return Object.keys(distribution)
    .sort()
    .map((letter) => `${letter}:${Math.round((distribution[letter] ?? 0) * 100)}%`)
    .join(' ')
}

/**
 * The mark the report puts beside a thresholded metric (`✓ ≥ 0.70` or `✗ < 0.80`),
 * computed with the same {@link meets} rule as the threshold test itself.
 */
export function thresholdMark(value: number | null | undefined, bound: number): string {
  return meets(value, bound) ? `✓ ≥ ${formatBound(bound)}` : `✗ < ${formatBound(bound)}`
}

/** The JSON-safe part of a result that goes into task meta: everything but the per-decision records. */
export function summarise(result: EvalResult): EvalResultJson {
  const { records: _records, ...json } = result
  return json
}

/** The worst (lowest) per-criterion balanced accuracy, or `undefined` when there is none. */
export function worstCriterion(perCriterion: Readonly<Record<string, number>>): [key: string, value: number] | undefined {
  let worst: [string, number] | undefined
  for (const key of Object.keys(perCriterion).sort()) {
    const value = perCriterion[key]!
    if (worst === undefined || value < worst[1]) worst = [key, value]
  }
  return worst
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
