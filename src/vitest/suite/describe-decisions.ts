/**
 * `describeDecisions`: one eval suite as Vitest tests. It declares the suite, its threshold,
 * baseline and callback tests, and scores once in `beforeAll` (score-suite.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DESCRIBE_DECISIONS_RENAMES, refuseRenamedOptions } from '../../core/evaluate/renamed-options.ts'
import { ConfigError, DEBIAS_MODES, DEFAULT_DEBIAS, type EvalResult, type ScoreFn } from '../../core/index.ts'
import { MAX_DEADLINE_MS, MAX_TIMER_MS } from '../../core/support/abort.ts'
import { evaluateThreshold, isBuiltinThreshold, THRESHOLD_METRICS } from '../../core/thresholds/metrics.ts'
import { resolveStopEarly } from '../../core/thresholds/sequential/options.ts'
import { assertThreshold, formatThreshold, thresholdTestName } from '../../core/thresholds/verdict.ts'
import { formatValue, summarise } from '../assertions/format.ts'
import { scepticMatchers } from '../assertions/matchers.ts'
import type { BaselineOutcome } from '../baseline/file.ts'
import { oneOrderingOutcome, runBaselineGate, underCI, updateMode } from '../baseline/gate.ts'
import { META_RECORDS_LIMIT, type ScepticSuiteMeta, THRESHOLD_KEYS, writeMeta } from '../meta.ts'
import { checkGateSettings } from '../plugin/gate-settings.ts'
import { withSuiteDefaults } from '../plugin/suite-defaults.ts'
import { callbackUnderShards, checkDeclared, deferredTest, SuitePart } from '../shards/part.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP, scepticContext } from './context.ts'
import { failureRateProblem } from './failure-rate.ts'
import { keepingSnapshotsOnFailure } from './keep-snapshots.ts'
import { BASELINE_TEST_NAME, CALLBACK_TEST_NAME, type DecisionsCallback, DEFAULT_SCORING_TIMEOUT_MS, type DescribeDecisionsOptions, type ScorerHandle } from './options.ts'
import { baselineDir, baselineLocation, deferredBaseline, fullRunReason, scorerHandle, scoreWithTimeout } from './score-suite.ts'
import { VERDICT_ANNOTATION, verdictNote, verdictOutputLine } from './verdict-note.ts'

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


function requireResult(result: EvalResult | undefined): EvalResult {
  // Vitest skips a suite's tests when beforeAll fails, so this only guards misuse.
  if (!result) throw new Error('the suite was not scored (see the beforeAll error)')
  return result
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
