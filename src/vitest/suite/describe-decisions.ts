/**
 * `describeDecisions`: an eval suite as a Vitest `describe`
 * (docs/vitest.md#describedecisionsname-options-fn). Scores once in `beforeAll` with its own timeout, then one named test per
 * threshold, one for the baseline gate, and the callback as its own test.
 */
import { withScorerManifest } from '../../core/scorer/live-manifest.ts'
import { describeScorer, ownDescription } from '../../core/scorer/description.ts'
import { DESCRIBE_DECISIONS_RENAMES, refuseRenamedOptions } from '../../core/evaluate/renamed-options.ts'
import type { CacheOptions } from '../../cache/config.ts'
import { cacheIdentityOf, withCache } from '../../cache/with-cache.ts'
import { isAbsolute, relative, resolve } from 'node:path'
import type { TestContext } from 'vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { VERDICT_ANNOTATION, verdictNote, verdictOutputLine } from './verdict-note.ts'
import {
  ConfigError,
  DEBIAS_MODES,
  DEFAULT_DEBIAS,
  evaluateWithScorer,
  isLabelled,
  loadDecisions,
  validateDecisions,
  type Criterion,
  type CustomMetric,
  type DebiasMode,
  type EvaluateOptions,
  type FallibleScoreFn,
  type ReducerLike,
  type Decision,
  type EvalResult,
  type ScoreFn,
} from '../../core/index.ts'
import { baselinePath, type BaselineOutcome } from '../baseline/file.ts'
import { oneOrderingOutcome, runBaselineGate, underCI, updateMode } from '../baseline/gate.ts'
import { keepingSnapshotsOnFailure } from './keep-snapshots.ts'
import { withSuiteDefaults } from '../plugin/suite-defaults.ts'
import { checkGateSettings } from '../plugin/gate-settings.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP, scepticContext, type ScepticContext } from './context.ts'
import { evaluateThreshold, isBuiltinThreshold, THRESHOLD_METRICS } from '../../core/thresholds/metrics.ts'
import { assertThreshold, formatThreshold, thresholdTestName } from '../../core/thresholds/verdict.ts'
import { formatValue, summarise } from '../assertions/format.ts'
import { scepticMatchers } from '../assertions/matchers.ts'
import { META_RECORDS_LIMIT, THRESHOLD_KEYS, writeMeta, type ScepticSuiteMeta, type Thresholds } from '../meta.ts'
import { deadline, MAX_DEADLINE_MS, MAX_TIMER_MS } from '../../core/support/abort.ts'
import { progressEmitter } from './progress.ts'
import { failureRateProblem } from './failure-rate.ts'
import { callbackUnderShards, checkDeclared, deferredTest, SuitePart } from '../shards/part.ts'
import { resolveReducer } from '../../core/evaluate/reducers.ts'
import { resolveStopEarly, type StopEarlyOptions } from '../../core/thresholds/sequential/options.ts'
import { existsSync } from 'node:fs'

/** Default scoring timeout of a suite: 10 minutes (inference is slow; Vitest's 10 s hook default is not for this). */
export const DEFAULT_SCORING_TIMEOUT_MS = 10 * 60_000

/** Extra time the Vitest hook gets beyond the scoring timeout, so our clearer timeout error fires first. */
const HOOK_GRACE_MS = 5_000

/**
 * The `beforeAll` hook's own limit: the scoring timeout plus grace. Vitest's timer is one
 * setTimeout, which fires at once past 2^31 − 1 ms, so a longer one turns it off (0) and
 * the scoring deadline (a chain of timers) alone bounds the hook.
 */
function hookTimeout(timeout: number): number {
  return timeout + HOOK_GRACE_MS > MAX_TIMER_MS ? 0 : timeout + HOOK_GRACE_MS
}

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

/** The callback of {@link describeDecisions}, run as its own test (`suite > assertions`). */
export type DecisionsCallback = (result: EvalResult, context: TestContext) => unknown

/** Name of the test that runs the callback. */
export const CALLBACK_TEST_NAME = 'assertions'
/** Name of the baseline gate's test. */
export const BASELINE_TEST_NAME = 'order consistency vs baseline'

/** The test name of a threshold (`orderConsistency ≥ 0.8`, `slotSensitivityGap ≤ 0.1`). */
export { thresholdTestName }

/**
 * Declare an eval suite. Scores `data` with `scorer` once, in `beforeAll`, then:
 * - one test per threshold, named `${metric} ≥ ${bound}` (or `≤ max`, `in [min, max]`);
 * - `order consistency vs baseline` when a baseline directory is configured (plugin
 *   `baseline` or this suite's `baseline`); with one ordering (debias `none`) it fails,
 *   since it cannot check anything (`baseline: false` opts out);
 * - `assertions`, running `fn(result, context)`, when `fn` is given.
 *
 * The result's metrics and manifest go into the suite's and each test's `meta.sceptic`,
 * which the sceptic reporter (and Vitest's json reporter) read.
 */
export function describeDecisions(name: string, suiteOptions: DescribeDecisionsOptions, fn?: DecisionsCallback): void {
  // The plugin's suite defaults (read at collection time) fill what the suite leaves unset.
  const options = withSuiteDefaults(suiteOptions, scepticContext()?.defaults)
  // A plugin-wide stopEarly does not reach a suite that splits its decisions over shards (the suite's own is refused).
  if (suiteOptions.shard === 'decisions' && suiteOptions.stopEarly === undefined) delete options.stopEarly
  checkOptions(name, options)
  // The threshold tests use the matchers; register them even without the plugin's setup file.
  expect.extend(scepticMatchers)

  const thresholds = options.thresholds ?? {}
  const debias = options.debias ?? DEFAULT_DEBIAS
  const timeout = options.timeout ?? DEFAULT_SCORING_TIMEOUT_MS
  const suiteFn = options.skip ? describe.skip : describe
  // Under `vitest --shard`, a suite that splits its decisions scores its part and defers its checks.
  const split = options.shard === 'decisions' ? scepticContext()?.shard : undefined

  suiteFn(name, () => {
    let result: EvalResult | undefined
    let suiteMeta: ScepticSuiteMeta | undefined
    // The checks this suite declares, named as their tests are (complete before beforeAll runs).
    const checks: string[] = []
    const declare = (testName: string) => (checks.push(testName), testName)
    // The verdict goes on the first of the suite's tests that runs, once.
    let announced = false
    const announce = async (annotate: (message: string, type?: string) => Promise<unknown>, measured: EvalResult) => {
      if (announced) return
      announced = true
      const summary = summarise(measured)
      await annotate(verdictNote(summary).message, VERDICT_ANNOTATION)
      console.log(verdictOutputLine(name, summary))
    }

    // Hook args must be `({}, suite)`: Vitest 4.1 parses the first parameter as a
    // fixture context and rejects anything but an object pattern (docs/design.md#vitest-mechanics-the-code-relies-on).
    // eslint-disable-next-line no-empty-pattern
    beforeAll(async ({}, suite) => {
      suiteMeta = { schema: 1, suite: name, thresholds, ...(split ? {} : { checks }) }
      writeMeta(suite.meta, suiteMeta)
      const part = split ? new SuitePart(split, debias) : undefined
      if (part) suiteMeta.shard = { index: part.spec.index, count: part.spec.count, maxFailureRate: options.maxFailureRate ?? 0, statistics: options.statistics }
      try {
        if (part) checkDeclared(name, suite.file?.filepath)
        const context = scepticContext()
        const full = options.stopEarly ? fullRunReason(name, options, fn !== undefined, context) : undefined
        const scored = await scoreWithTimeout(name, options, debias, timeout, context, part, full)
        if (part) suiteMeta.shard!.part = part.written
        if (scored) {
          result = scored
          suiteMeta.result = summarise(scored)
          if (scored.records.length <= META_RECORDS_LIMIT) suiteMeta.records = scored.records
        }
      } catch (error) {
        suiteMeta.error = oneLine(error)
        throw error
      }
    }, hookTimeout(timeout))

    if (options.closeScorer) {
      const handle = scorerHandle(options.scorer)
      afterAll(async () => {
        await handle.close?.()
      })
    }

    const customKeys = Object.keys(thresholds).filter((key) => !isBuiltinThreshold(key))
    for (const key of [...THRESHOLD_KEYS, ...customKeys]) {
      const threshold = thresholds[key]
      if (threshold === undefined) continue
      if (split) {
        deferredTest(name, thresholdTestName(key, threshold), key, split, { bound: threshold })
        continue
      }
      test(declare(thresholdTestName(key, threshold)), async ({ task, annotate }) => {
        const measured = requireResult(result)
        await announce(annotate, measured)
        checkFailureRate(name, measured, options.maxFailureRate ?? 0)
        // The one verdict the reporter, the HTML page and the job summary also use.
        const verdict = evaluateThreshold(measured, key, threshold)
        writeMeta(task.meta, { suite: name, check: key, bound: threshold, value: verdict.value, result: summarise(measured) })
        // Annotations are what Vitest's junit reporter writes as <property> elements.
        await annotate(`${formatValue(verdict.value)} (bound ${formatThreshold(threshold, String)})${verdict.sequential ? `; ${verdict.sequential}` : ''}`, `sceptic:${key}`)
        // Lower bounds on the headline metrics keep their matchers' messages (letters picked, worst criterion),
        // except in a run that stopped early, which the anytime-valid bounds decide.
        const assertion = expect(measured)
        const stopped = measured.stopEarly?.stopped === true
        if (!stopped && typeof threshold === 'number' && key === 'balancedAccuracy') assertion.toHaveBalancedAccuracy({ atLeast: threshold })
        else if (!stopped && typeof threshold === 'number' && key === 'orderConsistency') assertion.toHaveOrderConsistency({ atLeast: threshold })
        else if (!stopped && typeof threshold === 'number' && key === 'perCriterion') assertion.toHavePerCriterionBalancedAccuracy({ atLeast: threshold })
        if (!verdict.pass)
          expect.fail(
            `expected ${customKeys.includes(key) ? 'custom metric ' : ''}${thresholdTestName(key, threshold)}: ${verdict.reason}` +
              (key === 'accuracy' ? ` (chance ${formatValue(measured.manifest.chance)})` : '') +
              (verdict.sequential && verdict.sequential !== verdict.reason ? `; ${verdict.sequential}` : ''),
          )
      })
    }

    // A configured gate is always a test: with one ordering it fails rather than vanish.
    // The provided context is readable at collection time. Under decision shards the
    // gate is decided once, at the merge.
    const gateDir = options.baseline === false ? undefined : baselineDir(options.baseline, scepticContext())
    if (gateDir !== undefined && split && debias !== 'none') deferredTest(name, BASELINE_TEST_NAME, 'baseline', split, { baseline: deferredBaseline(name, gateDir, scepticContext(), options) })
    else if (gateDir !== undefined) {
      test(declare(BASELINE_TEST_NAME), async ({ task, annotate }) => {
        const measured = requireResult(result)
        await announce(annotate, measured)
        const context = scepticContext()
        const { path, file } = baselineLocation(gateDir, name, context)
        let outcome: BaselineOutcome
        if (debias === 'none') outcome = oneOrderingOutcome(file)
        else {
          checkFailureRate(name, measured, options.maxFailureRate ?? 0)
          const gate = {
            alpha: options.alpha ?? context?.alpha ?? DEFAULT_ALPHA,
            detectableDrop: options.detectableDrop ?? context?.detectableDrop ?? DEFAULT_DETECTABLE_DROP,
          }
          outcome = await runBaselineGate(name, measured, { path, file, mode: updateMode(context?.update), ci: underCI(), gate })
        }
        if (suiteMeta) suiteMeta.baseline = outcome
        writeMeta(task.meta, { suite: name, check: 'baseline', result: summarise(measured) })
        await annotate(outcome.message, 'sceptic:baseline')
        if (!outcome.pass) expect.fail(outcome.message)
      })
    }

    if (fn && split) callbackUnderShards(name, CALLBACK_TEST_NAME)
    else if (fn) {
      test(declare(CALLBACK_TEST_NAME), async (context) => {
        const measured = requireResult(result)
        await announce(context.annotate, measured)
        writeMeta(context.task.meta, { suite: name, check: 'callback', result: summarise(measured) })
        // The callback's assertions gate too: not on a silently smaller set (its snapshots are kept).
        await keepingSnapshotsOnFailure(() => {
          checkFailureRate(name, measured, options.maxFailureRate ?? 0)
          return fn(measured, context)
        })
      })
    }
  })
}

/** Definition-time checks: mistakes a user should see before anything is scored. */
function checkOptions(name: string, options: DescribeDecisionsOptions): void {
  if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('describeDecisions needs a suite name')
  if (!options || (typeof options.data !== 'string' && !Array.isArray(options.data)))
    throw new ConfigError(`describeDecisions("${name}"): \`data\` must be a JSONL path or an array of decisions`)
  refuseRenamedOptions(`describeDecisions("${name}")`, options, DESCRIBE_DECISIONS_RENAMES)
  const scorer = options.scorer
  if (typeof scorer !== 'function' && typeof (scorer as ScorerHandle | undefined)?.score !== 'function')
    throw new ConfigError(`describeDecisions("${name}"): \`scorer\` must be a ScoreFn or an object with a \`score\` function`)
  const debias = options.debias ?? DEFAULT_DEBIAS
  if (!(DEBIAS_MODES as readonly string[]).includes(debias))
    throw new ConfigError(`describeDecisions("${name}"): unknown debias mode "${debias}"; use one of ${DEBIAS_MODES.join(', ')}`)
  for (const [key, threshold] of Object.entries(options.thresholds ?? {})) {
    const custom = options.metrics !== undefined && Object.hasOwn(options.metrics, key)
    const builtin = THRESHOLD_METRICS.get(key)
    if (!custom && !builtin)
      throw new ConfigError(
        `describeDecisions("${name}"): unknown threshold "${key}"; use ${THRESHOLD_KEYS.join(', ')}, or the name of one of the suite's \`metrics\``,
      )
    assertThreshold(`describeDecisions("${name}")`, key, threshold, custom ? undefined : builtin!.range)
  }
  for (const key of Object.keys(options.thresholds ?? {}))
    if (THRESHOLD_METRICS.get(key)?.needsOrderings && debias === 'none')
      throw new ConfigError(`describeDecisions("${name}"): a ${key} threshold needs more than one ordering, but debias is "none"; use "cyclic"`)
  if (options.maxFailureRate !== undefined && !(options.maxFailureRate >= 0 && options.maxFailureRate <= 1))
    throw new ConfigError(`describeDecisions("${name}"): maxFailureRate must be in [0, 1], got ${String(options.maxFailureRate)}`)
  if (options.shard !== undefined && options.shard !== 'decisions')
    throw new ConfigError(`describeDecisions("${name}"): shard must be 'decisions' or unset, got ${JSON.stringify(options.shard)}`)
  if (options.shard === 'decisions' && options.metrics !== undefined)
    throw new ConfigError(`describeDecisions("${name}"): shard: 'decisions' cannot be combined with custom \`metrics\` (functions cannot travel to the merged run)`)
  if (options.shard === 'decisions' && debias === 'pride')
    throw new ConfigError(`describeDecisions("${name}"): shard: 'decisions' cannot be used with debias "pride" (its prior is estimated from a sample of the whole set); use "cyclic"`)
  if (options.shard === 'decisions' && options.stopEarly)
    throw new ConfigError(`describeDecisions("${name}"): shard: 'decisions' cannot be combined with stopEarly (a shard that stops on its own part would not merge into the full set's verdict); use one or the other`)
  if (options.stopEarly !== undefined && options.stopEarly !== false && options.stopEarly !== true && (typeof options.stopEarly !== 'object' || options.stopEarly === null))
    throw new ConfigError(`describeDecisions("${name}"): stopEarly must be true, false or { alpha?, batch?, minDecisions? }, got ${JSON.stringify(options.stopEarly)}`)
  if (options.stopEarly) {
    try {
      resolveStopEarly(options.stopEarly, 1)
    } catch (error) {
      throw new ConfigError(`describeDecisions("${name}"): ${(error as Error).message}`)
    }
  }
  checkGateSettings(`describeDecisions("${name}")`, options)
  if (options.timeout !== undefined && !(options.timeout > 0 && options.timeout <= MAX_DEADLINE_MS))
    throw new ConfigError(`describeDecisions("${name}"): timeout must be a positive number of milliseconds up to 1e12 (about 31 years), got ${String(options.timeout)}`)
}

/**
 * Load and score, bounded by `timeout`. The timer aborts the run's signal, which the
 * scorer receives with every call; the evaluation rejects at once, so a scorer stuck
 * inside one call cannot hold the suite past its timeout.
 */
async function scoreWithTimeout(
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
function fullRunReason(name: string, options: DescribeDecisionsOptions, hasCallback: boolean, context: ScepticContext | undefined): string | undefined {
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
function baselineLocation(dir: string, name: string, context: ScepticContext | undefined): { path: string; file: string } {
  const path = baselinePath(dir, name)
  const rel = relative(context?.root ?? process.cwd(), path)
  return { path, file: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path }
}

function baselineDir(option: string | undefined, context: ScepticContext | undefined): string | undefined {
  const root = context?.root ?? process.cwd()
  if (typeof option === 'string') return isAbsolute(option) ? option : resolve(root, option)
  return context?.baseline ?? undefined
}

/** Where a deferred baseline gate reads its baseline at merge, and how it compares (the merge never writes one). */
function deferredBaseline(name: string, dir: string, context: ScepticContext | undefined, options: DescribeDecisionsOptions) {
  return {
    ...baselineLocation(dir, name, context),
    alpha: options.alpha ?? context?.alpha ?? DEFAULT_ALPHA,
    detectableDrop: options.detectableDrop ?? context?.detectableDrop ?? DEFAULT_DETECTABLE_DROP,
  }
}

function requireResult(result: EvalResult | undefined): EvalResult {
  // Vitest skips a suite's tests when beforeAll fails, so this only guards misuse.
  if (!result) throw new Error('the suite was not scored (see the beforeAll error)')
  return result
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}

function oneLine(error: unknown): string {
  const e = error as Error | undefined
  const text = e?.message ? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}` : String(error)
  return text.split('\n')[0]!
}

/**
 * Fail the calling test when more decisions failed to score than allowed: metrics
 * over a silently smaller set must not pass a gate (recall_guard counts failures
 * per bucket for the same reason).
 */
function checkFailureRate(name: string, result: EvalResult, maxFailureRate: number): void {
  const problem = failureRateProblem(name, result, maxFailureRate)
  if (problem !== undefined) expect.fail(problem)
}
