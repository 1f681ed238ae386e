/** The options of `describeDecisions`, its callback and the names of the tests it declares. */
import { z } from 'zod'
import { CacheOptionsSchema, type CacheOptions } from '../cache/config.ts'
import type { SameKeys } from '../core/support/options.ts'
import { ThresholdSchema } from '../core/thresholds/verdict.ts'
import { RUN_FIELDS } from '../run/settings.ts'
import type { Criterion, CustomMetric, DebiasMode, EvalResult, EvaluateOptions, FallibleScoreFn, ReducerLike, ScoreFn } from '../core/index.ts'
import type { StopEarlyOptions } from '../core/thresholds/sequential/options.ts'
import type { Thresholds } from './meta.ts'

/** Default scoring timeout of a suite: 10 minutes (inference is slow; Vitest's 10 s hook default is not for this). */
export const DEFAULT_SCORING_TIMEOUT_MS = 10 * 60_000

/** A scorer with a description (and manifest entries) for the report, e.g. what an ONNX scorer factory returns. */
export interface ScorerHandle {
  /** The function that scores requests (a fallible one may return per-request failures). */
  score: ScoreFn | FallibleScoreFn
  /** What scored, for the report and the manifest (a model path, a name). */
  description?: string
  /** Extra manifest entries (batch size, workers, …). Never secrets. */
  manifest?: Record<string, unknown>
  /** Called after the suite (in `afterAll`) when `closeScorer` is set. */
  close?: () => unknown
}

/** Options of {@link describeDecisions}. */
export interface DescribeDecisionsOptions {
  /**
   * The decisions: a JSONL path (absolute, or relative to the Vitest root) or an
   * array of decision objects (validated like a file's lines).
   */
  data: string | readonly unknown[]
  /** Any ScoreFn (or FallibleScoreFn, e.g. `openAIScorer`), or a {@link ScorerHandle}. */
  scorer: ScoreFn | FallibleScoreFn | ScorerHandle
  /** Debias mode. Default `'cyclic'`: without several orderings order consistency is n/a. */
  debias?: DebiasMode
  /**
   * Thresholds, one named test each: a number is a lower bound (`suite > orderConsistency ≥ 0.8`),
   * `{ min?, max? }` a range (`suite > slotSensitivityGap ≤ 0.1`). Unknown keys are refused.
   */
  thresholds?: Thresholds
  /** Scoring timeout in ms (the `beforeAll` hook's own). Default 10 minutes. */
  timeout?: number
  /** Seed recorded in the manifest. Default 0. */
  seed?: number
  /**
   * Baseline directory for this suite (absolute or relative to the Vitest root),
   * overriding the plugin's `baseline`; `false` turns the gate off for this suite.
   */
  baseline?: string | false
  /** Significance level of the baseline gate. Default: the plugin's, else 0.05. */
  alpha?: number
  /** The drop in order consistency (share of decisions) the gate should detect; the report says when it cannot. Default 0.1. */
  detectableDrop?: number
  /** The scorer's description, for the report and `manifest.scorer` (default: the handle's or the function's `description`, else the function's name, else `(injected scorer)`). */
  scorerDescription?: string
  /** Extra manifest entries. Never secrets. */
  manifest?: Record<string, unknown>
  /** Requests per ScoreFn call. Default 1024. */
  chunkSize?: number
  /** Prompt builder. Default: the standard prompt (docs/data-format.md#the-prompt). */
  template?: (state: string, criterion: Criterion) => string
  /** Skip the whole suite (nothing is scored), e.g. `skip: !process.env.RUN_SLOW_EVALS`. */
  skip?: boolean
  /** Call the scorer's `close()` (handle or function property) after the suite. Default `false` (a scorer may be shared by suites). */
  closeScorer?: boolean
  /** Times each (decision, ordering) is scored, for sampling scorers. Default 1. */
  epochs?: number
  /** Epoch reducer for each decision's `value`: `'mean'` (default), `'median'`, `'mode'`, `'max'`, `atLeast(k, threshold?)`, `passAt(k, threshold?)`, or a recorded name such as `'pass_at_2'` or `'at_least_3_ge_0.6'`. */
  reducer?: ReducerLike
  /** How orderings are combined: `'probability'` (default, the reference) or `'log'` (geometric mean). */
  average?: EvaluateOptions['average']
  /**
   * Share of decisions (per option count, at least one each) that `debias: 'pride'` scores
   * under every cyclic rotation to estimate the slot prior, in (0, 1]. Default 0.05.
   */
  prideFraction?: EvaluateOptions['prideFraction']
  /**
   * Attach intervals, baselines and verdicts to the result. Default `true`; `false` skips the
   * bootstrap; `{ resamples?, level? }` tunes it.
   */
  statistics?: EvaluateOptions['statistics']
  /**
   * Custom metrics over the frozen, reduced per-decision scores; shown in the report and
   * usable as thresholds by name: `thresholds: { confidentAndWrong: 0 }` is not a
   * lower bound you want, so name metrics so that higher is better.
   */
  metrics?: Readonly<Record<string, CustomMetric>>
  /**
   * Largest share of labelled decisions allowed to fail scoring (timeouts, HTTP errors)
   * before every threshold, baseline and callback test fails, in [0, 1]. Default 0: a threshold
   * must not pass on a silently smaller set.
   */
  maxFailureRate?: number
  /** Keep prompt text in records (default: a sha256 prefix only). */
  storePrompts?: boolean
  /**
   * The score cache (docs/cache.md): `{ dir, mode }` or `false` (off). Default: the
   * plugin's `cache`, else `SCEPTIC_CACHE_DIR` / `SCEPTIC_CACHE_MODE`, else read-write
   * in `node_modules/.cache/vitest-sceptic/`. Only scorers with a cache identity
   * (this package's ONNX and HTTP scorers, or a function with a string `cacheKey`) are cached.
   */
  cache?: CacheOptions | false
  /**
   * `'decisions'`: under `vitest run --shard i/n` (with the plugin) each shard scores only its
   * part of the decisions (split by `group_id`, else `id`, as `sceptic evaluate --shard`), defers
   * every threshold and the baseline gate, and `vitest --merge-reports` recomputes the suite from
   * all parts and checks them once (docs/scaling-out.md#vitest-shards-that-split-decisions).
   * Write it literally in the eval file: the plugin reads the file to run it in every shard.
   * Default: unset (Vitest's file sharding; the suite scores all its decisions in one shard).
   */
  shard?: 'decisions'
  /**
   * Score in a seeded random order and stop once every threshold is decided by anytime-valid
   * bounds, or one has failed (docs/stopping-early.md): `true` or `{ alpha?, batch?, minDecisions? }`;
   * `false` turns a plugin default off. A run that could write a baseline or a snapshot
   * (`vitest -u`, a missing baseline, an assertions callback outside CI) scores everything.
   * Default: the plugin's `stopEarly`, else off.
   */
  stopEarly?: boolean | StopEarlyOptions
}

/**
 * The keys of {@link DescribeDecisionsOptions}, checked where the suite is declared (the run
 * settings' rules are `RUN_FIELDS`'). Every face that declares suites with these options
 * checks them with this schema.
 */
export const DescribeDecisionsOptionsSchema = z
  .strictObject({
    ...RUN_FIELDS,
    data: z.union([z.string(), z.array(z.unknown()).readonly()]),
    scorer: z.custom<ScoreFn | FallibleScoreFn | ScorerHandle>(),
    // Threshold names are metric names (built-in or the suite's `metrics`), checked on their own.
    thresholds: z.record(z.string(), ThresholdSchema.optional()),
    baseline: z.union([z.string(), z.literal(false)]),
    alpha: z.number(),
    detectableDrop: z.number(),
    scorerDescription: z.string(),
    manifest: z.record(z.string(), z.unknown()),
    template: z.custom<(state: string, criterion: Criterion) => string>(),
    skip: z.boolean(),
    closeScorer: z.boolean(),
    metrics: z.record(z.string(), z.custom<CustomMetric>()),
    cache: z.union([CacheOptionsSchema, z.literal(false)]),
    shard: z.literal('decisions'),
  })
  .partial()
true satisfies SameKeys<z.input<typeof DescribeDecisionsOptionsSchema>, DescribeDecisionsOptions>

/** Name of the test that runs the callback. */
export const CALLBACK_TEST_NAME = 'assertions'
/** Name of the baseline gate's test. */
export const BASELINE_TEST_NAME = 'order consistency vs baseline'
