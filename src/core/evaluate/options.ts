/** The options of `evaluateWithScorer`, and the settings they resolve to once defaults are applied and checked. */
import { z } from 'zod'
import type { Criterion } from '../decisions/schema.ts'
import { refuseUnknownOptions, type SameKeys } from '../support/options.ts'
import { ThresholdSchema } from '../thresholds/verdict.ts'
import type { StatisticsOptions } from '../statistics/compute.ts'
import type { AverageMode, DebiasMode } from '../requests/orderings.ts'
import { buildPrompt } from '../requests/prompt.ts'
import { resolveReducer, type Reducer, type ReducerLike } from './reducers.ts'
import type { CustomMetric } from './sample-score.ts'
import { EVALUATE_RENAMES, refuseRenamedOptions } from './renamed-options.ts'
import { EVALUATE_FIELDS, parseEvaluateSettings } from './settings.ts'
import type { StopEarlyOptions } from '../thresholds/sequential/options.ts'
import type { BaselineLooks } from '../thresholds/sequential/paired.ts'
import type { Threshold } from '../thresholds/verdict.ts'

/**
 * Most per-epoch values one run holds with several epochs: `epochs × Σ (options + orderings)`
 * over its decisions (2^27, about 1 GiB of totals and picks).
 */
export const MAX_EPOCH_VALUES = 2 ** 27

/** Progress of a running evaluation, in decisions. */
export interface EvaluateProgress {
  /** Labelled decisions fully scored (or failed) so far. */
  scored: number
  /** Labelled decisions to score. */
  total: number
  /** Scorer requests answered so far (content-free requests included). */
  requestsScored: number
  /** Scorer requests in the whole run. */
  requestsTotal: number
}

/** Options for `evaluateWithScorer`. */
export interface EvaluateOptions {
  /** How options are re-ordered and combined. Default `'cyclic'` ({@link DEFAULT_DEBIAS}). */
  debias?: DebiasMode
  /**
   * How each decision's per-ordering vectors are combined per option id: `'probability'`
   * (arithmetic mean, the reference behaviour; default) or `'log'` (mean of log p with a
   * 1e-10 floor, then renormalised: exact for a multiplicative slot prior).
   */
  average?: AverageMode
  /**
   * Share of decisions (per option count, at least one each) that `debias: 'pride'`
   * scores under every cyclic rotation to estimate the slot prior, in (0, 1]. Default
   * 0.05, PriDe's α. The sample is drawn with `seed`.
   */
  prideFraction?: number
  /**
   * Attach `statistics` (intervals, baselines, minimum detectable difference, RStd, ECE
   * reliability, verdicts; seeded with `seed`). Default true; `false` skips the
   * bootstrap (about 2 s per 10^5 decisions). An object sets `resamples` or `level`.
   */
  statistics?: boolean | Pick<StatisticsOptions, 'resamples' | 'level'>
  /** Seed recorded in the manifest (and used by anything random). Default 0. */
  seed?: number
  /**
   * The scorer's description: what scored the requests, for the report and `manifest.scorer`.
   * Default: the scorer's own `description` string, else its function name as `name (ScoreFn)`,
   * else `(injected scorer)`.
   */
  scorerDescription?: string
  /** Extra manifest entries (model path, batch size, …). Must hold no secrets. */
  manifest?: Record<string, unknown>
  /**
   * Times each (decision, ordering) is scored, for scorers that sample. Requests
   * carry their `epoch` index. Probabilities are averaged over epochs; correctness
   * per epoch is reduced by `reducer` into each decision's `value`. Default 1.
   */
  epochs?: number
  /** How per-epoch correctness becomes one value per decision. Default `'mean'`; runs even at one epoch. */
  reducer?: ReducerLike
  /** Custom metrics over the frozen, reduced {@link SampleScore}s, reported under `metrics`. */
  metrics?: Readonly<Record<string, CustomMetric>>
  /**
   * Requests per ScoreFn call, at least one decision's requests. Bounds memory on
   * large sets while still letting a scorer batch across decisions. Default 1024.
   */
  chunkSize?: number
  /** Prompt builder. Default `buildPrompt` (docs/data-format.md#the-prompt). */
  template?: (state: string, criterion: Criterion) => string
  /** Called after each chunk is scored. */
  onProgress?: (progress: EvaluateProgress) => void
  /** Called with warnings (unlabelled rows skipped). Default `console.warn`. */
  onWarning?: (message: string) => void
  /**
   * Cancels the run: it is passed to every scorer call (`ScoreContext.signal`), the
   * evaluator stops waiting on a call the moment it aborts, and the promise rejects
   * with the signal's reason.
   */
  signal?: AbortSignal
  /**
   * Keep each decision's prompt text (as presented in the first ordering) in its
   * record. Off by default: records carry only `promptHash`, a sha256 prefix, so
   * artifacts stay small and do not copy possibly sensitive evidence.
   */
  storePrompts?: boolean
  /**
   * Thresholds on the result, by the keys `describeDecisions` takes (a number is a lower
   * bound; `{ min?, max? }`). Recorded in `manifest.thresholds`; with `stopEarly` they
   * are what the run decides.
   */
  thresholds?: Readonly<Record<string, Threshold>>
  /**
   * Score in a seeded random order and stop once every threshold is decided (or one has
   * failed) by anytime-valid bounds (docs/stopping-early.md). `true` takes the defaults.
   */
  stopEarly?: true | StopEarlyOptions
  /**
   * With `stopEarly`: a baseline gate the looks decide too (paired McNemar e-processes), so
   * the run stops only once it is decided as well, or on a clear regression.
   */
  baseline?: BaselineLooks
  /**
   * Largest share of labelled decisions that may fail to score, in [0, 1] (the gate's rule; default 0).
   * With `stopEarly` and a share above 0, the looks decide it by an anytime-valid bound like a threshold.
   */
  maxFailureRate?: number
}

/** The keys of {@link EvaluateOptions} (the settings' rules are {@link EVALUATE_FIELDS}'), checked where they are given. */
export const EvaluateOptionsSchema = z.strictObject({
  ...EVALUATE_FIELDS,
  scorerDescription: z.string(),
  // Manifest entries, custom metric names and threshold names are the user's data, not options.
  manifest: z.record(z.string(), z.unknown()),
  metrics: z.record(z.string(), z.custom<CustomMetric>()),
  template: z.custom<(state: string, criterion: Criterion) => string>(),
  onProgress: z.custom<(progress: EvaluateProgress) => void>(),
  onWarning: z.custom<(message: string) => void>(),
  signal: z.custom<AbortSignal>(),
  thresholds: z.record(z.string(), ThresholdSchema),
  baseline: z.custom<BaselineLooks>(),
}).partial()
true satisfies SameKeys<z.input<typeof EvaluateOptionsSchema>, EvaluateOptions>

/** The options every stage reads, with their defaults applied and checked. */
export interface Settings {
  readonly debias: DebiasMode
  readonly average: AverageMode
  /** In (0, 1]; checked when the pride sample is drawn. */
  readonly prideFraction: number
  readonly seed: number
  /** Requests per scorer call (a decision's requests are never split). */
  readonly chunkSize: number
  readonly template: (state: string, criterion: Criterion) => string
  readonly signal: AbortSignal | undefined
  /** Integer ≥ 1. */
  readonly epochs: number
  readonly reducer: Reducer
  /** In [0, 1]. */
  readonly maxFailureRate: number
}

/** Apply the defaults and refuse a bad option (a `ConfigError` stating its rule) before anything is scored. */
export function resolveSettings(options: EvaluateOptions): Settings {
  refuseRenamedOptions('evaluateWithScorer', options, EVALUATE_RENAMES)
  refuseUnknownOptions(EvaluateOptionsSchema, options, 'evaluateWithScorer options')
  const { debias, average, prideFraction, seed, chunkSize, epochs, reducer, maxFailureRate } = parseEvaluateSettings(options as Readonly<Record<string, unknown>>)
  const { template = buildPrompt, signal } = options
  return { debias, average, prideFraction, seed, chunkSize, template, signal, epochs, reducer: resolveReducer(reducer), maxFailureRate }
}
