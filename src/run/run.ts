/**
 * `runEvaluation`: one evaluation run as both front ends compose it. Select a shard's part,
 * put the scorer behind the cache (and a shard's recorder), bound the run by its timeout,
 * evaluate, and write the part file a shard leaves for the merge.
 */
import { cacheIdentityOf, withCache } from '../cache/with-cache.ts'
import type { CacheOptions } from '../cache/config.ts'
import { scorerId } from '../cache/key.ts'
import { isLabelled, type Criterion, type Decision } from '../core/decisions/schema.ts'
import { evaluateWithScorer } from '../core/evaluate/index.ts'
import type { EvaluateProgress } from '../core/evaluate/options.ts'
import type { CustomMetric } from '../core/evaluate/sample-score.ts'
import type { EvalResult } from '../core/result/result.ts'
import { readCacheCounts } from '../core/scorer/cache-counts.ts'
import type { CacheIdentity, FallibleScoreFn, ScoreFn } from '../core/scorer/contract.ts'
import { withScorerManifest } from '../core/scorer/live-manifest.ts'
import { partFileText, partSettingsOf, recordingScorer } from '../core/shards/part-file.ts'
import { selectShard, type ShardSelection } from '../core/shards/select.ts'
import type { DebiasMode } from '../core/requests/orderings.ts'
import type { ShardSpec } from '../core/shards/spec.ts'
import { deadline } from '../core/support/abort.ts'
import { ScorerError } from '../core/support/errors.ts'
import type { Threshold } from '../core/thresholds/verdict.ts'
import type { BaselineLooks } from '../core/thresholds/sequential/paired.ts'
import type { RunSettings } from './settings.ts'

/** What scores a run, and how the report and manifest name it. */
export interface RunScorer {
  readonly score: ScoreFn | FallibleScoreFn
  /** The report's model line and `manifest.scorer`. */
  readonly description: string
  /** Manifest entries; live ones (getters) are read when the run ends. Never secrets. */
  readonly manifest: Record<string, unknown>
  /** The cache identity; default {@link cacheIdentityOf} the scorer. */
  readonly identity?: CacheIdentity | undefined
  /** The scorer's module file (`--scorer`), when it has one: a shard part's scorer identity digests it. */
  readonly module?: string | undefined
}

/** What a run is given besides its decisions, scorer and settings. */
export interface RunContext {
  /** The score cache; `false` turns it off. Default: the environment's. */
  readonly cache?: CacheOptions | false | undefined
  /** Where relative cache paths resolve. Default `process.cwd()`. */
  readonly cwd?: string | undefined
  /** Score only this part of the decisions and leave a part file for the merge (unless `selectRun` chose already). */
  readonly shard?: RunShard | undefined
  /** Cancels the run (with `settings.timeout`, whichever comes first). */
  readonly signal?: AbortSignal | undefined
  /** The error a run past `settings.timeout` rejects with. */
  readonly timedOut?: ((progress: { scored: number; total: number }) => Error) | undefined
  /** Thresholds the run records (and, with `stopEarly`, decides). */
  readonly thresholds?: Readonly<Record<string, Threshold>> | undefined
  /** With `stopEarly`: the baseline gate the looks decide too. */
  readonly baseline?: BaselineLooks | undefined
  readonly metrics?: Readonly<Record<string, CustomMetric>> | undefined
  readonly template?: ((state: string, criterion: Criterion) => string) | undefined
  /** Manifest entries of the run itself (beside the scorer's). */
  readonly manifest?: Readonly<Record<string, unknown>> | undefined
  readonly onProgress?: ((progress: EvaluateProgress) => void) | undefined
  /** Evaluation warnings (unlabelled rows skipped). Default: none shown. */
  readonly onWarning?: ((message: string) => void) | undefined
  /** One-line cache warnings. Default `console.warn`. */
  readonly onCacheWarning?: ((message: string) => void) | undefined
}

/** A run's outcome. */
export interface RunOutcome {
  /** The result; undefined for a shard that holds no labelled decision. */
  readonly result: EvalResult | undefined
  /** A shard's part file (what `sceptic merge` reads). */
  readonly part: string | undefined
  /** Labelled decisions this run scored (a shard's part), and in all the decisions given. */
  readonly labelled: { readonly scored: number; readonly all: number }
}

/** The decisions a run scores: all of them, or a shard's part. */
export interface RunSelection {
  readonly all: readonly Decision[]
  readonly decisions: readonly Decision[]
  readonly selection: ShardSelection | undefined
  readonly shard: RunShard | undefined
  /** Labelled decisions this run scores (a shard's part), and in all the decisions given. */
  readonly labelled: { readonly scored: number; readonly all: number }
}

/** A shard to score: which part, and how its errors name the option (`--shard`). */
export interface RunShard {
  readonly spec: ShardSpec
  readonly label: string
}

/** Select what a run scores (before its scorer loads, so a refused shard costs nothing). */
export function selectRun(all: readonly Decision[], debias: DebiasMode, shard?: RunShard): RunSelection {
  const selection = shard ? selectShard(all, shard.spec, debias, shard.label) : undefined
  const decisions = selection?.evaluate ?? all
  const labelledAll = all.filter(isLabelled).length
  return { all, decisions, selection, shard, labelled: { scored: selection ? decisions.filter(isLabelled).length : labelledAll, all: labelledAll } }
}

/** Run one evaluation: the pipeline both `sceptic evaluate` and `describeDecisions` use. */
export async function runEvaluation(input: readonly Decision[] | RunSelection, scorer: RunScorer, settings: RunSettings, context: RunContext = {}): Promise<RunOutcome> {
  const { all, decisions, selection, shard, labelled } = Array.isArray(input) ? selectRun(input, settings.debias, context.shard) : (input as RunSelection)
  const identity = scorer.identity ?? cacheIdentityOf(scorer.score, scorer.description)
  const cached = withCache(scorer.score, {
    cache: context.cache,
    ...(context.cwd !== undefined ? { cwd: context.cwd } : {}),
    identity,
    ...(context.onCacheWarning ? { onWarning: context.onCacheWarning } : {}),
  })
  // A shard keeps every answer for the merge (docs/scaling-out.md).
  const recording = selection ? recordingScorer(cached) : undefined
  const scorerId = selection ? await partScorerId(scorer, identity) : ''
  const part = (records: number) =>
    selection &&
    partFileText({
      shard: shard!.spec,
      fingerprint: selection.fingerprint,
      rows: all.length,
      settings: partSettingsOf(settings),
      scorer: scorer.description,
      scorerId,
      manifest: scorer.manifest,
      cache: readCacheCounts(cached),
      records,
      decisions: selection.rows,
      answers: recording!.answers,
    })
  // A shard can hold no labelled decision (small data, many shards): it leaves an empty part.
  if (selection && labelled.scored === 0) return { result: undefined, part: part(0), labelled }
  const result = await bounded(settings, context, labelled.scored, (signal, onProgress) =>
    evaluateWithScorer(decisions, recording?.score ?? cached, {
      ...evaluationOptions(settings, context),
      scorerDescription: scorer.description,
      manifest: runManifest(scorer, shard, context.manifest),
      signal,
      onProgress,
      onWarning: context.onWarning ?? (() => {}),
    }),
  )
  return { result, part: part(result.records.length), labelled }
}

/**
 * A part's scorer identity: the cache key's scorer id over the scorer's identity and its module's
 * bytes, so parts of two scorers that share a description (one file name) do not merge.
 */
function partScorerId(scorer: RunScorer, identity: CacheIdentity | undefined): Promise<string> {
  const files = { ...identity?.files, ...(scorer.module === undefined ? {} : { scorerModule: scorer.module }) }
  return scorerId({ kind: identity?.kind ?? 'user', label: scorer.description, settings: identity?.settings ?? null, files }, undefined, false)
}

/** The evaluation options a run's settings and context give. */
function evaluationOptions(settings: RunSettings, context: RunContext) {
  const { debias, average, prideFraction, epochs, reducer, statistics, chunkSize, seed, storePrompts, stopEarly, maxFailureRate } = settings
  const thresholds = context.thresholds && Object.keys(context.thresholds).length > 0 ? context.thresholds : undefined
  return {
    ...{ debias, average, prideFraction, epochs, reducer, statistics, chunkSize, seed, storePrompts, maxFailureRate },
    ...(thresholds ? { thresholds } : {}),
    ...(stopEarly !== false ? { stopEarly } : {}),
    ...(stopEarly !== false && context.baseline ? { baseline: context.baseline } : {}),
    ...(context.metrics ? { metrics: context.metrics } : {}),
    ...(context.template ? { template: context.template } : {}),
  }
}

/** The run's own manifest entries (why it did not stop early, a shard's part) with the scorer's after them. */
function runManifest(scorer: RunScorer, shard: RunShard | undefined, extra: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const own = { ...extra, ...(shard ? { shard: `${shard.spec.index}/${shard.spec.count}` } : {}) }
  if (Object.keys(own).length === 0) return scorer.manifest
  return withScorerManifest(Object.defineProperties({}, Object.getOwnPropertyDescriptors(own)), { manifestEntries: () => scorer.manifest })
}

/** `evaluate` under the run's signal and its timeout, with progress counted for the timeout's message. */
async function bounded<T>(
  settings: RunSettings,
  context: RunContext,
  total: number,
  evaluate: (signal: AbortSignal | undefined, onProgress: (progress: EvaluateProgress) => void) => Promise<T>,
): Promise<T> {
  let scored = 0
  const onProgress = (progress: EvaluateProgress) => {
    scored = progress.scored
    context.onProgress?.(progress)
  }
  if (settings.timeout === undefined) return evaluate(context.signal, onProgress)
  const timeout = settings.timeout
  const limit = deadline(
    timeout,
    () => context.timedOut?.({ scored, total }) ?? new ScorerError(`the run timed out after ${timeout} ms with ${scored} of ${total} decisions scored`),
    context.signal,
  )
  try {
    return await evaluate(limit.signal, onProgress)
  } finally {
    limit.clear()
  }
}
