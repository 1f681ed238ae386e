/**
 * Scoring one suite: load its data, wrap its scorer in the cache (and a shard's recorder),
 * bound it by the suite's timeout and evaluate; and where its baseline lives.
 */
import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { cacheIdentityOf, withCache } from '../../cache/with-cache.ts'
import { resolveReducer } from '../../core/evaluate/reducers.ts'
import { type DebiasMode, type Decision, type EvalResult, evaluateWithScorer, type FallibleScoreFn, isLabelled, loadDecisions, type ScoreFn, validateDecisions } from '../../core/index.ts'
import { describeScorer, ownDescription } from '../../core/scorer/description.ts'
import { withScorerManifest } from '../../core/scorer/live-manifest.ts'
import { deadline } from '../../core/support/abort.ts'
import { baselinePath } from '../baseline/file.ts'
import { updateMode } from '../baseline/gate.ts'
import type { Thresholds } from '../meta.ts'
import { SuitePart } from '../shards/part.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP, type ScepticContext } from './context.ts'
import type { DescribeDecisionsOptions, ScorerHandle } from './options.ts'
import { progressEmitter } from './progress.ts'

/**
 * Load and score, bounded by `timeout`. The timer aborts the run's signal, which the
 * scorer receives with every call; the evaluation rejects at once, so a scorer stuck
 * inside one call cannot hold the suite past its timeout.
 */
export async function scoreWithTimeout(
  name: string,
  options: DescribeDecisionsOptions,
  debias: DebiasMode,
  timeout: number,
  context: ScepticContext | undefined,
  part?: SuitePart,
  fullRun?: string,
): Promise<EvalResult | undefined> {
  let decisions: Decision[]
  try {
    decisions = await loadData(options.data, context)
    if (part) decisions = part.select(decisions)
  } catch (error) {
    throw wrapFailure(name, error)
  }
  const handle = scorerHandle(options.scorer)
  let progress = { scored: 0, total: decisions.filter(isLabelled).length }
  const emit = context?.progress ? progressEmitter(name) : undefined
  // The deadline's signal reaches the scorer (ScoreContext.signal) and the evaluator stops
  // waiting on a scorer call the moment it fires, so a stuck scorer cannot hold the suite.
  const limit = deadline(timeout, () => {
    const error = new Error(
      `"${name}": scoring timed out after ${formatMs(timeout)} (${progress.scored} of ${progress.total} decisions scored). ` +
        'Raise the suite\'s (or the plugin\'s) `timeout` option, or score fewer decisions.',
    )
    error.name = 'ScoringTimeout'
    return error
  })
  const cached = withCache(handle.score, {
    cache: options.cache ?? context?.cache,
    ...(context ? { cwd: context.root } : {}),
    identity: cacheIdentityOf(handle.score, handle.description),
  })
  const score = part ? part.record(cached) : cached
  const scorer = options.scorerDescription ?? handle.description ?? describeScorer(handle.score)
  // The scorer's own entries (an openAIScorer's requests per endpoint) are read at the end of the run.
  const manifest = withScorerManifest({ ...handle.manifest, ...options.manifest }, handle.score)
  const settings = {
    debias,
    seed: options.seed ?? 0,
    epochs: options.epochs ?? 1,
    reducer: resolveReducer(options.reducer).name,
    average: options.average ?? 'probability',
    storePrompts: options.storePrompts === true,
  }
  const finishPart = (records: number) => part?.finish({ settings, scorer, manifest, cacheOf: cached, records })
  // A shard can hold no labelled decision of the suite: it leaves an empty part.
  if (part && progress.total === 0) return void finishPart(0)
  const evaluation = evaluateWithScorer(decisions, score, {
    debias,
    seed: options.seed ?? 0,
    scorerDescription: scorer,
    manifest: part
      ? withScorerManifest({ ...handle.manifest, ...options.manifest, shard: `${part.spec.index}/${part.spec.count}` }, handle.score)
      : fullRun
        ? { ...manifest, stopEarlyOff: fullRun }
        : manifest,
    ...(options.stopEarly && !fullRun && !part ? { thresholds: definedThresholds(options.thresholds ?? {}), stopEarly: options.stopEarly } : {}),
    ...(options.chunkSize !== undefined ? { chunkSize: options.chunkSize } : {}),
    ...(options.template ? { template: options.template } : {}),
    ...(options.epochs !== undefined ? { epochs: options.epochs } : {}),
    ...(options.reducer !== undefined ? { reducer: options.reducer } : {}),
    ...(options.average !== undefined ? { average: options.average } : {}),
    ...(options.prideFraction !== undefined ? { prideFraction: options.prideFraction } : {}),
    ...(options.statistics !== undefined ? { statistics: options.statistics } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.storePrompts ? { storePrompts: true } : {}),
    signal: limit.signal,
    onWarning: () => {
      // Unlabelled rows are counted in the manifest and shown in the report; no console noise.
    },
    onProgress: (p) => {
      progress = { scored: p.scored, total: p.total }
      emit?.(p)
    },
  })
  try {
    const result = await evaluation
    finishPart(result.records.length)
    return result
  } catch (error) {
    if ((error as Error)?.name === 'ScoringTimeout') throw error
    throw wrapFailure(name, error)
  } finally {
    limit.clear()
  }
}

/**
 * Why a suite with `stopEarly` must score every decision this run, or undefined when it
 * may stop: a partial run must never write a baseline or a snapshot.
 */
export function fullRunReason(name: string, options: DescribeDecisionsOptions, hasCallback: boolean, context: ScepticContext | undefined): string | undefined {
  const mode = updateMode(context?.update)
  if (mode === 'all') return 'every decision scored: vitest -u writes baselines and snapshots, which must come from the whole set'
  if (mode === 'none') return undefined
  if (hasCallback) return 'every decision scored: the assertions callback may write a new snapshot, which must come from the whole set (under CI, where none is written, the suite stops early)'
  const dir = options.baseline === false ? undefined : baselineDir(options.baseline, context)
  if (dir !== undefined && !existsSync(baselineLocation(dir, name, context).path)) return 'every decision scored: the baseline is missing and is written from this run'
  return undefined
}

/** The thresholds given, without `undefined` entries. */
function definedThresholds(thresholds: Thresholds): Record<string, NonNullable<Thresholds[string]>> {
  return Object.fromEntries(Object.entries(thresholds).filter(([, threshold]) => threshold !== undefined)) as Record<string, NonNullable<Thresholds[string]>>
}

/**
 * A handle for either form of `scorer`. Scorer factories in this package return a
 * ScoreFn carrying `description` (a one-line description) and `close()` (the ONNX and
 * HTTP scorers); those are used when present.
 */
export function scorerHandle(scorer: ScoreFn | FallibleScoreFn | ScorerHandle): ScorerHandle {
  if (typeof scorer !== 'function') return scorer
  const fn = scorer as ScoreFn & { close?: unknown }
  const description = ownDescription(fn)
  return {
    score: scorer,
    ...(description !== undefined ? { description } : {}),
    ...(typeof fn.close === 'function' ? { close: () => (fn.close as () => unknown)() } : {}),
  }
}

/** One clear line naming the suite, keeping the original error's class name and cause. */
function wrapFailure(name: string, error: unknown): Error {
  const message = (error as Error)?.message ?? String(error)
  const wrapped = new Error(`"${name}": scoring failed: ${message.split('\n')[0]}`, { cause: error })
  wrapped.name = (error as Error)?.name ?? 'Error'
  return wrapped
}

async function loadData(data: string | readonly unknown[], context: ScepticContext | undefined): Promise<Decision[]> {
  if (typeof data !== 'string') return validateDecisions(data)
  // Relative to the Vitest root, not the worker's cwd (docs/vitest.md#baselines).
  const root = context?.root ?? process.cwd()
  return loadDecisions(isAbsolute(data) ? data : resolve(root, data))
}

/** The suite's baseline file, and how the report names it (relative to the root when inside it). */
export function baselineLocation(dir: string, name: string, context: ScepticContext | undefined): { path: string; file: string } {
  const path = baselinePath(dir, name)
  const rel = relative(context?.root ?? process.cwd(), path)
  return { path, file: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path }
}

export function baselineDir(option: string | undefined, context: ScepticContext | undefined): string | undefined {
  const root = context?.root ?? process.cwd()
  if (typeof option === 'string') return isAbsolute(option) ? option : resolve(root, option)
  return context?.baseline ?? undefined
}

/** Where a deferred baseline gate reads its baseline at merge, and how it compares (the merge never writes one). */
export function deferredBaseline(name: string, dir: string, context: ScepticContext | undefined, options: DescribeDecisionsOptions) {
  return {
    ...baselineLocation(dir, name, context),
    alpha: options.alpha ?? context?.alpha ?? DEFAULT_ALPHA,
    detectableDrop: options.detectableDrop ?? context?.detectableDrop ?? DEFAULT_DETECTABLE_DROP,
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}
