/** The `stopEarly` option of an evaluation, its defaults and checks, and what a result says about it. */
import { ConfigError } from '../../support/errors.ts'
import { THRESHOLD_METRICS } from '../metrics.ts'
import { refuseUnknownThreshold } from '../keys.ts'
import { assertThreshold, type Threshold } from '../verdict.ts'

/** Default level of the anytime-valid bounds. */
export const DEFAULT_STOP_ALPHA = 0.05

/** Most decisions scored between two looks by default. */
export const MAX_DEFAULT_BATCH = 64

/** How a run may stop early (`stopEarly: true` takes every default). */
export interface StopEarlyOptions {
  /** Level of the anytime-valid bounds, in (0, 1): a wrong verdict at any stop has chance at most `alpha` per threshold. Default 0.05. */
  alpha?: number
  /** Decisions scored between two looks. Default: a hundredth of the labelled decisions, between 8 and 64. */
  batch?: number
  /** No verdict before this many decisions are scored. Default 0 (the bounds are valid from the first look). */
  minDecisions?: number
}

/** `stopEarly` with its defaults applied. */
export interface StopEarlySettings {
  readonly alpha: number
  readonly batch: number
  readonly minDecisions: number
}

/** Apply the defaults to `stopEarly` (checked with the other settings) for a run of `total` labelled decisions. */
export function resolveStopEarly(option: true | StopEarlyOptions, total: number): StopEarlySettings {
  const given: StopEarlyOptions = option === true ? {} : option
  // A look costs nothing in level (the bounds are anytime-valid), so looks are frequent: a stop overshoots by half a batch on average.
  const { alpha = DEFAULT_STOP_ALPHA, batch = Math.min(MAX_DEFAULT_BATCH, Math.max(8, Math.ceil(total / 100))), minDecisions = 0 } = given
  return { alpha, batch, minDecisions }
}

/**
 * Check thresholds: a built-in key within its range, or one of the run's custom metrics. The one
 * rule of `evaluateWithScorer` and of the CLI's `--threshold` (evaluate and merge); `where` names the face.
 */
export function checkThresholds(thresholds: Readonly<Record<string, unknown>>, customMetrics: readonly string[], where = 'evaluateWithScorer'): Record<string, Threshold> {
  const out: Record<string, Threshold> = {}
  for (const [key, threshold] of Object.entries(thresholds)) {
    if (threshold === undefined) continue
    const builtin = THRESHOLD_METRICS.get(key)
    refuseUnknownThreshold(`${where}: `, key, customMetrics)
    assertThreshold(where, key, threshold, builtin?.range)
    out[key] = threshold
  }
  return out
}
