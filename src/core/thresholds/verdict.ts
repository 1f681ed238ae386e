/**
 * Whether a measured metric meets a threshold. Tests, matchers and every report call it, so
 * a number never passes its test and shows a failure mark. Fails closed: a missing, `null`
 * or NaN value fails with a reason; an unknown key is an error, never a skipped gate.
 */
import { z } from 'zod'
import { ConfigError } from '../support/errors.ts'

/**
 * Floating-point slack for a bound. Metrics are ratios of small integers (0.7 may come
 * out as 0.6999999999999998); a bound a user wrote as 0.7 must pass for a measured 7/10.
 */
export const BOUND_EPSILON = 1e-9

/** Bounds of a range threshold; at least one is given, and `min ≤ max`. */
export const ThresholdRangeSchema = z
  .object({
    /** Lower bound, inclusive. */
    min: z.number().finite().optional(),
    /** Upper bound, inclusive. */
    max: z.number().finite().optional(),
  })
  .strict()
  .refine((range) => range.min !== undefined || range.max !== undefined, 'needs `min`, `max` or both')
  .refine((range) => range.min === undefined || range.max === undefined || range.min <= range.max, '`min` must not exceed `max`')

/** A threshold: a number (a lower bound, as `balancedAccuracy: 0.7`) or `{ min?, max? }` (`slotSensitivityGap: { max: 0.1 }`). */
export const ThresholdSchema = z.union([z.number().finite(), ThresholdRangeSchema])

/** See {@link ThresholdSchema}. */
export type Threshold = z.infer<typeof ThresholdSchema>

/** A threshold as inclusive bounds. */
export interface Bounds {
  /** Lower bound, inclusive; absent for none. */
  min?: number
  /** Upper bound, inclusive; absent for none. */
  max?: number
}

/** What a threshold check found. */
export interface ThresholdVerdict {
  /** The metric key (`balancedAccuracy`, `slotSensitivityGap`, a custom metric's name). */
  key: string
  /** The threshold as bounds. */
  bounds: Bounds
  /** The measured value; `null` when the metric was not measurable or is unknown. */
  value: number | null
  /** Whether the value meets every bound (within {@link BOUND_EPSILON}). */
  pass: boolean
  /** Why it failed, one phrase (`0.650 is below the bound 0.70`); `null` when it passed. */
  reason: string | null
  /** With `stopEarly`: how the looks decided it (`decided after 212 of 1000 decisions, anytime-valid at α = 0.05: …`). */
  sequential?: string
}

/** A number threshold is a lower bound; a range is itself. */
export function toBounds(threshold: Threshold): Bounds {
  return typeof threshold === 'number' ? { min: threshold } : threshold
}

/**
 * The verdict of one measured value against one threshold. Fails closed: `null`,
 * `undefined` and non-finite values fail with "not measurable".
 */
export function thresholdVerdict(key: string, threshold: Threshold, value: number | null | undefined): ThresholdVerdict {
  const bounds = toBounds(threshold)
  const base = { key, bounds, value: typeof value === 'number' && !Number.isNaN(value) ? value : null }
  if (typeof value !== 'number' || !Number.isFinite(value))
    return { ...base, pass: false, reason: `${key} is not measurable here (${value === undefined ? 'missing' : String(value)})` }
  if (bounds.min !== undefined && value < bounds.min - BOUND_EPSILON)
    return { ...base, pass: false, reason: `${formatMeasured(value)} is below the bound ${formatBound(bounds.min)}` }
  if (bounds.max !== undefined && value > bounds.max + BOUND_EPSILON)
    return { ...base, pass: false, reason: `${formatMeasured(value)} is above the bound ${formatBound(bounds.max)}` }
  return { ...base, pass: true, reason: null }
}

/** Whether a value meets a lower bound (the matchers' `atLeast`): {@link thresholdVerdict}'s rule. */
export function meetsLowerBound(value: number | null | undefined, bound: number): boolean {
  return thresholdVerdict('value', bound, value).pass
}

/** A bound as written in names and marks: two decimals, more only when needed (0.875). */
export function formatBound(bound: number): string {
  const two = bound.toFixed(2)
  return Number(two) === bound ? two : String(Number(bound.toFixed(4)))
}

function formatMeasured(value: number): string {
  return value.toFixed(3)
}

/** A threshold as a condition: `≥ 0.70`, `≤ 0.10`, `in [-0.05, 0.05]`. */
export function formatThreshold(threshold: Threshold, format: (n: number) => string = formatBound): string {
  const { min, max } = toBounds(threshold)
  if (min !== undefined && max !== undefined) return `in [${format(min)}, ${format(max)}]`
  return min !== undefined ? `≥ ${format(min)}` : `≤ ${format(max!)}`
}

/**
 * The test name of a threshold, as the user wrote the bound: `orderConsistency ≥ 0.8`,
 * `slotSensitivityGap ≤ 0.1`, `preferenceFairness in [-0.05, 0.05]`.
 */
export function thresholdTestName(key: string, threshold: Threshold): string {
  return `${key} ${formatThreshold(threshold, String)}`
}

/**
 * Check a threshold's shape; returns the problem in one phrase, or `null`. `range` is
 * the interval the metric lives in (a bound outside it can never be met or always is).
 */
export function thresholdProblem(threshold: unknown, range: readonly [number, number] = [-Infinity, Infinity]): string | null {
  const parsed = ThresholdSchema.safeParse(threshold)
  if (!parsed.success) {
    const detail = typeof threshold === 'object' && threshold !== null && !Array.isArray(threshold) ? `: ${parsed.error.issues[0]?.message}` : ''
    return `must be a finite number (a lower bound) or { min?, max? }, got ${describe(threshold)}${detail}`
  }
  const { min, max } = toBounds(parsed.data)
  for (const bound of [min, max])
    if (bound !== undefined && (bound < range[0] || bound > range[1])) return `must lie in [${range[0]}, ${range[1]}], got ${bound}`
  return null
}

/** Throw a {@link ConfigError} naming `where` and the key unless the threshold is well formed. */
export function assertThreshold(where: string, key: string, threshold: unknown, range?: readonly [number, number]): asserts threshold is Threshold {
  const problem = thresholdProblem(threshold, range)
  if (problem) throw new ConfigError(`${where}: threshold ${key} ${problem}`)
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
