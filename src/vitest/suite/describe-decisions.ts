/**
 * `describeDecisions`: one eval suite as Vitest tests. It declares the suite, its threshold,
 * baseline and callback tests, and scores once in `beforeAll` (score-suite.ts).
 */
import { afterAll, beforeAll, describe, expect, test, type TestContext } from 'vitest'
import type { EvalResult } from '../../core/index.ts'
import type { ShardSpec } from '../../core/shards/spec.ts'
import { MAX_TIMER_MS } from '../../core/support/abort.ts'
import { isBuiltinThreshold } from '../../core/thresholds/metrics.ts'
import { formatThreshold, thresholdTestName } from '../../core/thresholds/verdict.ts'
import { decideRun, gateCheck, type BaselineMeasure, type RunGate } from '../../run/gate.ts'
import type { RunSettings } from '../../run/settings.ts'
import { formatValue, summarise } from '../../suite/assertions/format.ts'
import { scepticMatchers } from '../assertions/matchers.ts'
import type { BaselineOutcome } from '../../suite/baseline/file.ts'
import { oneOrderingOutcome, runBaselineGate, underCI } from '../../suite/baseline/run-gate.ts'
import { updateMode } from '../baseline/gate.ts'
import { META_RECORDS_LIMIT, type ScepticSuiteMeta, THRESHOLD_KEYS, type Thresholds, writeMeta } from '../../suite/meta.ts'
import { withSuiteDefaults } from '../plugin/suite-defaults.ts'
import { checkOptions } from '../../suite/check-options.ts'
import { callbackUnderShards, checkDeclared, deferredTest } from '../shards/part.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP } from '../../suite/context.ts'
import { scepticContext } from './context.ts'
import { keepingSnapshotsOnFailure } from './keep-snapshots.ts'
import { BASELINE_TEST_NAME, CALLBACK_TEST_NAME, DEFAULT_SCORING_TIMEOUT_MS, type DescribeDecisionsOptions, type ScorerHandle } from '../../suite/options.ts'
import { baselineDir, baselineLocation, deferredBaseline, fullRunReason, scorerHandle, scoreSuite, suiteInputs, suiteKeptFolders } from '../../suite/score-suite.ts'
import { VERDICT_ANNOTATION, verdictNote, verdictOutputLine } from '../../suite/verdict-note.ts'
import { atCallSite, atUserLine, callSite } from './user-frame.ts'
import { attachReport } from './report-attachment.ts'

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


/** The callback of {@link describeDecisions}, run as its own test (`suite > assertions`). */
export type DecisionsCallback = (result: EvalResult, context: TestContext) => unknown

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
  // Every error the suite throws points at this call in the user's file (user-frame.ts).
  const site = callSite()
  try {
    declareSuite(name, suiteOptions, fn, site)
  } catch (error) {
    throw atCallSite(error, site)
  }
}

function declareSuite(name: string, suiteOptions: DescribeDecisionsOptions, fn: DecisionsCallback | undefined, site: string | undefined): void {
  // The plugin's suite defaults (read at collection time) fill what the suite leaves unset.
  const options = withSuiteDefaults(suiteOptions, scepticContext()?.defaults)
  // A plugin-wide stopEarly does not reach a suite that splits its decisions over shards (the suite's own is refused).
  if (suiteOptions.shard === 'decisions' && suiteOptions.stopEarly === undefined) delete options.stopEarly
  const settings = checkOptions(name, options)
  // The threshold tests use the matchers; register them even without the plugin's setup file.
  expect.extend(scepticMatchers)
  // Under `vitest --shard`, a suite that splits its decisions scores its part and defers its checks.
  const split = options.shard === 'decisions' ? scepticContext()?.shard : undefined
  const suite = new SuiteState(name, options, settings, split, fn)
  suite.site = site
  ;(options.skip ? describe.skip : describe)(name, () => {
    declareScoring(suite)
    declareThresholdTests(suite)
    declareBaselineTest(suite)
    declareCallbackTest(suite)
  })
}

/** One suite while Vitest runs it: what it measured, its meta, the checks it declared. */
class SuiteState {
  result: EvalResult | undefined
  meta: ScepticSuiteMeta | undefined
  /** The checks this suite declares, named as their tests are (complete before beforeAll runs). */
  readonly checks: string[] = []
  readonly thresholds: Thresholds
  /** The user's `describeDecisions` call, where the suite's errors point. */
  site: string | undefined
  private announced = false

  constructor(
    readonly name: string,
    readonly options: DescribeDecisionsOptions,
    readonly settings: RunSettings,
    readonly split: ShardSpec | undefined,
    readonly fn: DecisionsCallback | undefined,
  ) {
    this.thresholds = options.thresholds ?? {}
  }

  declare(testName: string): string {
    this.checks.push(testName)
    return testName
  }

  /** The result, once the verdict went on the first of the suite's tests that runs. */
  async measured(annotate: TestContext['annotate']): Promise<EvalResult> {
    // Vitest skips a suite's tests when beforeAll fails, so this only guards misuse.
    if (!this.result) throw new Error('the suite was not scored (see the beforeAll error)')
    if (!this.announced) {
      this.announced = true
      const summary = summarise(this.result)
      await annotate(verdictNote(summary).message, VERDICT_ANNOTATION)
      await attachReport(annotate, this.name, this.result)
      console.log(verdictOutputLine(this.name, summary))
    }
    return this.result
  }

  /** The one gate's verdict on what the suite declared and measured so far (the baseline's outcome once its test ran). */
  gate(baseline?: BaselineMeasure): RunGate {
    const declared = { name: this.name, thresholds: this.thresholds, maxFailureRate: this.settings.maxFailureRate, baseline: baseline !== undefined }
    return decideRun(declared, { result: this.result && summarise(this.result), baseline })
  }

  /** Fail the calling test when the gate's failure-rate rule fails: metrics over a silently smaller set must not pass a gate. */
  checkFailureRate(): void {
    const rate = gateCheck(this.gate(), 'failureRate')!
    if (rate.verdict !== 'pass') expect.fail(rate.reason)
  }
}

/** `beforeAll`: score once, write the suite's meta (and a shard's part); `afterAll`: close the scorer if asked. */
function declareScoring(suite: SuiteState): void {
  const { name, options, settings, split } = suite
  const timeout = settings.timeout ?? DEFAULT_SCORING_TIMEOUT_MS
  // Hook args must be `({}, suite)`: Vitest 4.1 parses the first parameter as a
  // fixture context and rejects anything but an object pattern (docs/design.md#vitest-mechanics-the-code-relies-on).
  // eslint-disable-next-line no-empty-pattern
  beforeAll(async ({}, task) => {
    const meta: ScepticSuiteMeta = { schema: 1, suite: name, thresholds: suite.thresholds, maxFailureRate: settings.maxFailureRate, ...(split ? {} : { checks: suite.checks }) }
    suite.meta = meta
    writeMeta(task.meta, meta)
    if (split) meta.shard = { index: split.index, count: split.count, maxFailureRate: settings.maxFailureRate, statistics: settings.statistics }
    try {
      if (split) checkDeclared(name, task.file?.filepath)
      const context = scepticContext()
      meta.inputs = suiteInputs(name, options, context)
      meta.kept = suiteKeptFolders(options, context)
      const full = settings.stopEarly ? fullRunReason(name, options, suite.fn !== undefined, context, updateMode(context?.update)) : undefined
      const { result, part } = await scoreSuite(name, options, settings, context, split, full)
      if (meta.shard) meta.shard.part = part
      if (result) {
        suite.result = result
        meta.result = summarise(result)
        if (result.records.length <= META_RECORDS_LIMIT) meta.records = result.records
      }
    } catch (error) {
      meta.error = oneLine(error)
      throw atCallSite(error, suite.site)
    }
  }, hookTimeout(timeout))
  if (options.closeScorer) {
    const handle = scorerHandle(options.scorer)
    afterAll(async () => {
      await handle.close?.()
    })
  }
}

/** One test per threshold (deferred to the merge under decision shards). */
function declareThresholdTests(suite: SuiteState): void {
  const { name, thresholds, split } = suite
  const customKeys = Object.keys(thresholds).filter((key) => !isBuiltinThreshold(key))
  for (const key of [...THRESHOLD_KEYS, ...customKeys]) {
    const threshold = thresholds[key]
    if (threshold === undefined) continue
    if (split) deferredTest(name, thresholdTestName(key, threshold), key, split, { bound: threshold })
    else test(suite.declare(thresholdTestName(key, threshold)), async ({ task, annotate }) => atUserLine(suite.site, () => thresholdTest(suite, key, threshold, customKeys.includes(key), task, annotate)))
  }
}

async function thresholdTest(suite: SuiteState, key: string, threshold: NonNullable<Thresholds[string]>, custom: boolean, task: TestContext['task'], annotate: TestContext['annotate']): Promise<void> {
  const measured = await suite.measured(annotate)
  suite.checkFailureRate()
  // The one gate's verdict, which the reporter, the HTML page and the job summary render too.
  const check = gateCheck(suite.gate(), key)!
  const value = check.value ?? null
  writeMeta(task.meta, { suite: suite.name, check: key, bound: threshold, value, result: summarise(measured) })
  // Annotations are what Vitest's junit reporter writes as <property> elements.
  await annotate(`${formatValue(value)} (bound ${formatThreshold(threshold, String)})${check.sequential ? `; ${check.sequential}` : ''}`, `sceptic:${key}`)
  if (check.verdict === 'pass') return
  // A value below a lower bound on a headline metric keeps its matcher's message (letters picked, worst criterion),
  // except in a run that stopped early, which the anytime-valid bounds decide.
  const assertion = expect(measured)
  const below = !check.notMeasured && measured.stopEarly?.stopped !== true && typeof threshold === 'number'
  if (below && key === 'balancedAccuracy') assertion.toHaveBalancedAccuracy({ atLeast: threshold })
  else if (below && key === 'orderConsistency') assertion.toHaveOrderConsistency({ atLeast: threshold })
  else if (below && key === 'perCriterion') assertion.toHavePerCriterionBalancedAccuracy({ atLeast: threshold })
  expect.fail(
    `expected ${custom ? 'custom metric ' : ''}${check.name}: ${check.reason}` +
      (key === 'accuracy' ? ` (chance ${formatValue(measured.manifest.chance)})` : '') +
      (check.sequential && !check.reason.includes(check.sequential) ? `; ${check.sequential}` : ''),
  )
}

/**
 * A configured gate is always a test: with one ordering it fails rather than vanish. The
 * provided context is readable at collection time. Under decision shards the gate is
 * decided once, at the merge.
 */
function declareBaselineTest(suite: SuiteState): void {
  const { name, options, settings, split } = suite
  const gateDir = options.baseline === false ? undefined : baselineDir(options.baseline, scepticContext())
  if (gateDir === undefined) return
  if (split && settings.debias !== 'none') return deferredTest(name, BASELINE_TEST_NAME, 'baseline', split, { baseline: deferredBaseline(name, gateDir, scepticContext(), options) })
  test(suite.declare(BASELINE_TEST_NAME), async ({ task, annotate }) => atUserLine(suite.site, async () => {
    const measured = await suite.measured(annotate)
    const context = scepticContext()
    const { path, file } = baselineLocation(gateDir, name, context)
    let outcome: BaselineOutcome
    if (settings.debias === 'none') outcome = oneOrderingOutcome(file)
    else {
      suite.checkFailureRate()
      const gate = {
        alpha: options.alpha ?? context?.alpha ?? DEFAULT_ALPHA,
        detectableDrop: options.detectableDrop ?? context?.detectableDrop ?? DEFAULT_DETECTABLE_DROP,
      }
      outcome = await runBaselineGate(name, measured, { path, file, mode: updateMode(context?.update), ci: underCI(), gate })
    }
    // The one gate decides: a stopped run's sequential test that found no regression has not decided the gate.
    const check = gateCheck(suite.gate(outcome), 'baseline')!
    const decided: BaselineOutcome = { ...outcome, pass: check.verdict === 'pass', message: check.reason }
    if (suite.meta) suite.meta.baseline = decided
    writeMeta(task.meta, { suite: name, check: 'baseline', result: summarise(measured) })
    await annotate(decided.message, 'sceptic:baseline')
    if (!decided.pass) expect.fail(decided.message)
  }))
}

/** The callback's assertions gate too: not on a silently smaller set (its snapshots are kept). */
function declareCallbackTest(suite: SuiteState): void {
  const { name, split, fn } = suite
  if (!fn) return
  if (split) return callbackUnderShards(name, CALLBACK_TEST_NAME)
  test(suite.declare(CALLBACK_TEST_NAME), async (context) => atUserLine(suite.site, async () => {
    const measured = await suite.measured(context.annotate)
    writeMeta(context.task.meta, { suite: name, check: 'callback', result: summarise(measured) })
    await keepingSnapshotsOnFailure(() => {
      suite.checkFailureRate()
      return fn(measured, context)
    })
  }))
}

function oneLine(error: unknown): string {
  const e = error as Error | undefined
  const text = e?.message ? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}` : String(error)
  return text.split('\n')[0]!
}
