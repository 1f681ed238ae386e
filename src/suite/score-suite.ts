/**
 * Scoring one suite: load its data, wrap its scorer in the cache (and a shard's recorder),
 * bound it by the suite's timeout and evaluate; and where its baseline lives.
 */
import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { resolveCache } from '../cache/config.ts'
import { cacheIdentityOf } from '../cache/with-cache.ts'
import { type Decision, type FallibleScoreFn, loadDecisions, type ScoreFn, validateDecisions } from '../core/index.ts'
import { describeScorer, ownDescription } from '../core/scorer/description.ts'
import { withScorerManifest } from '../core/scorer/live-manifest.ts'
import type { ShardSpec } from '../core/shards/spec.ts'
import { runEvaluation, selectRun, type RunOutcome, type RunScorer, type RunSelection } from '../run/run.ts'
import type { RunSettings } from '../run/settings.ts'
import { baselinePath } from './baseline/file.ts'
import { baselineLooks } from './baseline/looks.ts'
import type { BaselineLooks } from '../core/thresholds/sequential/paired.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP } from './baseline/run-gate.ts'
import type { Thresholds } from './meta.ts'
import type { ScepticContext } from './context.ts'
import { DEFAULT_SCORING_TIMEOUT_MS, type DescribeDecisionsOptions, type ScorerHandle } from './options.ts'
import { progressEmitter } from './progress.ts'

/**
 * Load and score, bounded by the suite's timeout. The timer aborts the run's signal, which
 * the scorer receives with every call; the evaluation rejects at once, so a scorer stuck
 * inside one call cannot hold the suite past its timeout.
 */
export async function scoreSuite(
  name: string,
  options: DescribeDecisionsOptions,
  settings: RunSettings,
  context: ScepticContext | undefined,
  split?: ShardSpec,
  fullRun?: string,
): Promise<RunOutcome> {
  let selected: RunSelection
  try {
    const shard = split && { spec: split, label: "vitest --shard with shard: 'decisions'" }
    selected = selectRun(await loadData(options.data, context), settings.debias, shard)
  } catch (error) {
    throw wrapFailure(name, error)
  }
  const timeout = settings.timeout ?? DEFAULT_SCORING_TIMEOUT_MS
  const stops = settings.stopEarly !== false && !fullRun && !split
  // The baseline gate is decided at the looks too: the run stops only once it is (or on a clear regression).
  const baseline = stops ? await suiteBaselineLooks(name, options, settings, context) : undefined
  try {
    return await runEvaluation(selected, suiteScorer(options), { ...settings, timeout, stopEarly: stops ? settings.stopEarly : false }, {
      cache: options.cache ?? context?.cache,
      cwd: context?.root,
      timedOut: ({ scored, total }) => scoringTimeout(name, timeout, scored, total),
      thresholds: stops ? definedThresholds(options.thresholds ?? {}) : undefined,
      baseline,
      metrics: options.metrics,
      template: options.template,
      manifest: fullRun ? { stopEarlyOff: fullRun } : undefined,
      onProgress: context?.progress ? progressEmitter(name) : undefined,
    })
  } catch (error) {
    if ((error as Error)?.name === 'ScoringTimeout') throw error
    throw wrapFailure(name, error)
  }
}

/** The suite's scorer as a run takes it: its description, manifest entries and cache identity. */
function suiteScorer(options: DescribeDecisionsOptions): RunScorer {
  const handle = scorerHandle(options.scorer)
  return {
    score: handle.score,
    description: options.scorerDescription ?? handle.description ?? describeScorer(handle.score),
    // The scorer's own entries (an openAIScorer's requests per endpoint) are read at the end of the run.
    manifest: withScorerManifest({ ...handle.manifest, ...options.manifest }, handle.score),
    identity: cacheIdentityOf(handle.score, handle.description),
  }
}

function scoringTimeout(name: string, timeout: number, scored: number, total: number): Error {
  const error = new Error(
    `"${name}": scoring timed out after ${formatMs(timeout)} (${scored} of ${total} decisions scored). ` +
      'Raise the suite\'s (or the plugin\'s) `timeout` option, or score fewer decisions.',
  )
  error.name = 'ScoringTimeout'
  return error
}

/**
 * Why a suite with `stopEarly` must score every decision this run, or undefined when it
 * may stop: a partial run must never write a baseline or a snapshot. `mode`: the runner's snapshot update mode.
 */
export function fullRunReason(name: string, options: DescribeDecisionsOptions, hasCallback: boolean, context: ScepticContext | undefined, mode: 'all' | 'new' | 'none'): string | undefined {
  if (mode === 'all') return 'every decision scored: vitest -u writes baselines and snapshots, which must come from the whole set'
  const dir = options.baseline === false ? undefined : baselineDir(options.baseline, context)
  // A stored baseline gate is decided at the looks (suiteBaselineLooks): the run stops only once it is.
  if (mode === 'none') return undefined
  if (hasCallback) return 'every decision scored: the assertions callback may write a new snapshot, which must come from the whole set (under CI, where none is written, the suite stops early)'
  if (dir !== undefined && !existsSync(baselineLocation(dir, name, context).path)) return 'every decision scored: the baseline is missing and is written from this run'
  return undefined
}

/** The suite's baseline gate for the looks, or `undefined` when it has none to pair with (the gate then fails or writes at the end, as without stopEarly). */
async function suiteBaselineLooks(name: string, options: DescribeDecisionsOptions, settings: RunSettings, context: ScepticContext | undefined): Promise<BaselineLooks | undefined> {
  const dir = options.baseline === false ? undefined : baselineDir(options.baseline, context)
  if (dir === undefined || settings.debias === 'none') return undefined
  const { path } = baselineLocation(dir, name, context)
  return baselineLooks(name, path, {
    alpha: options.alpha ?? context?.alpha ?? DEFAULT_ALPHA,
    detectableDrop: options.detectableDrop ?? context?.detectableDrop ?? DEFAULT_DETECTABLE_DROP,
  })
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
  return loadDecisions(dataPath(data, context))
}

/** The data file's path: relative to the Vitest root, not the worker's cwd (docs/baselines.md#baselines). */
function dataPath(data: string, context: ScepticContext | undefined): string {
  return isAbsolute(data) ? data : resolve(context?.root ?? process.cwd(), data)
}

/** The files a suite reads (its data file, its baseline): no report may be written over them. */
export function suiteInputs(name: string, options: DescribeDecisionsOptions, context: ScepticContext | undefined): string[] {
  const dir = options.baseline === false ? undefined : baselineDir(options.baseline, context)
  return [...(typeof options.data === 'string' ? [dataPath(options.data, context)] : []), ...(dir !== undefined ? [baselinePath(dir, name)] : [])]
}

/** The folders the tool keeps for the suite: its score cache, in use or not (as `sceptic evaluate` plans its outputs). */
export function suiteKeptFolders(options: DescribeDecisionsOptions, context: ScepticContext | undefined): string[] {
  return [resolveCache(options.cache ?? context?.cache, { cwd: context?.root ?? process.cwd() }).dir]
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
