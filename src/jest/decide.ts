/**
 * Everything the Jest face decides or names, taken from the suite layer both faces use: the
 * options' checks, scoring (`runEvaluation`), the threshold tests' names and verdicts, the
 * failure-rate rule, the baseline gate, the verdict note, the letter snapshot's tolerance and
 * the report. The face has no rule of its own: this module is its one adapter to those homes
 * (a structure test keeps every other file of src/jest/ from importing them), so a single
 * gate can replace what it calls here.
 */
import type { EvalResult } from '../core/index.ts'
import { thresholdTestName, type Threshold } from '../core/thresholds/verdict.ts'
import { decideRun, gateCheck, type GateCheck } from '../run/gate.ts'
import { formatValue, summarise } from '../suite/assertions/format.ts'
import { toHaveBalancedAccuracy, toHaveOrderConsistency, toHavePerCriterionBalancedAccuracy } from '../suite/assertions/result-matchers.ts'
export { toHaveBalancedAccuracy, toHaveOrderConsistency, toHavePerCriterionBalancedAccuracy }
import type { BaselineOutcome } from '../suite/baseline/file.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP, oneOrderingOutcome, runBaselineGate, underCI } from '../suite/baseline/run-gate.ts'
import type { ScepticContext } from '../suite/context.ts'
import type { DescribeDecisionsOptions } from '../suite/options.ts'
import { baselineDir, baselineLocation, fullRunReason, scoreSuite } from '../suite/score-suite.ts'
import type { RunSettings } from '../run/settings.ts'

export { checkOptions } from '../suite/check-options.ts'
export { scorerHandle } from '../suite/score-suite.ts'
export { BASELINE_TEST_NAME, CALLBACK_TEST_NAME, DEFAULT_SCORING_TIMEOUT_MS, type DescribeDecisionsOptions, type ScorerHandle } from '../suite/options.ts'
export { META_RECORDS_LIMIT, THRESHOLD_KEYS, type ScepticSuiteMeta, type Thresholds } from '../suite/meta.ts'
export { isBuiltinThreshold } from '../core/thresholds/metrics.ts'
export { verdictOutputLine } from '../suite/verdict-note.ts'
export { summarise, thresholdTestName, underCI }
export { MAX_TIMER_MS } from '../core/support/abort.ts'
// The letter snapshot: its text, its tolerance rule and what to say when none is written.
export { compareDistributions, DEFAULT_LETTER_TOLERANCE, parseDistribution, readOnlyUnderCI, renderDistribution } from '../suite/assertions/snapshot.ts'
export { notWrittenHint } from '../suite/baseline/missing-record.ts'
export { asDistribution, toHaveAccuracyAboveChance, type AboveChanceOptions, type AtLeast, type LetterDistributionOptions, type MatcherOutcome, type ResultLike, type ScepticMatchers } from '../suite/assertions/result-matchers.ts'
export { checkLetterOptions } from '../suite/assertions/options-schema.ts'
// The report and the job summary.
export { renderReports, type SuiteReport } from '../suite/suite-report.ts'
export { checkReporterOptions, ScepticJestReporterOptionsSchema, type ScepticJestReporterOptions } from '../suite/reporter-options.ts'
export { withDeclaredChecks, type SuiteTest } from '../report/suite-tests.ts'
export { githubSummary } from '../report/github.ts'
export { colorEnabled } from '../report/index.ts'

/** Jest's snapshot update mode: `all` under `-u`, `none` under `--ci`, else `new`. */
export type UpdateMode = 'all' | 'new' | 'none'

/** What the Vitest plugin would provide, for a Jest run: the root is Jest's working directory; no plugin defaults. */
export function jestContext(mode: UpdateMode): ScepticContext {
  return { root: process.cwd(), baseline: null, update: mode, progress: false, alpha: DEFAULT_ALPHA, detectableDrop: DEFAULT_DETECTABLE_DROP }
}

/** Score a suite as the Vitest face does (a suite that may stop early scores everything when it could write a baseline or snapshot). */
export function scoreJestSuite(name: string, options: DescribeDecisionsOptions, settings: RunSettings, hasCallback: boolean, mode: UpdateMode) {
  const context = jestContext(mode)
  const full = settings.stopEarly ? fullRunReason(name, options, hasCallback, context, mode) : undefined
  return scoreSuite(name, options, settings, context, undefined, full)
}

/** The one gate's check `key` of a suite that declared `thresholds` (and a baseline outcome, for the baseline check). */
function check(name: string, result: EvalResult, settings: RunSettings, key: string, thresholds: Readonly<Record<string, Threshold | undefined>> = {}, baseline?: BaselineOutcome): GateCheck {
  const declared = { name, thresholds, maxFailureRate: settings.maxFailureRate, baseline: baseline !== undefined }
  return gateCheck(decideRun(declared, { result: summarise(result), baseline }), key)!
}

/** Why the calling check fails because too many decisions failed to score (the gate's failure-rate check), or undefined. */
export function failureRate(name: string, result: EvalResult, settings: RunSettings): string | undefined {
  const rate = check(name, result, settings, 'failureRate')
  return rate.verdict === 'pass' ? undefined : rate.reason
}

/**
 * A threshold test's failure message, or undefined when it passes: the one gate decides; the
 * message is the Vitest face's (failure rate, then the headline matchers' messages, then the gate's reason).
 */
export function thresholdFailure(name: string, result: EvalResult, settings: RunSettings, key: string, threshold: Threshold, custom: boolean): string | undefined {
  const rate = failureRate(name, result, settings)
  if (rate !== undefined) return rate
  const verdict = check(name, result, settings, key, { [key]: threshold })
  if (verdict.verdict === 'pass') return undefined
  const below = !verdict.notMeasured && result.stopEarly?.stopped !== true && typeof threshold === 'number'
  const matcher = !below
    ? undefined
    : key === 'balancedAccuracy'
      ? toHaveBalancedAccuracy
      : key === 'orderConsistency'
        ? toHaveOrderConsistency
        : key === 'perCriterion'
          ? toHavePerCriterionBalancedAccuracy
          : undefined
  if (matcher) {
    const outcome = matcher.call({ isNot: false }, result, { atLeast: threshold as number })
    if (!outcome.pass) return outcome.message()
  }
  return (
    `expected ${custom ? 'custom metric ' : ''}${verdict.name}: ${verdict.reason}` +
    (key === 'accuracy' ? ` (chance ${formatValue(result.manifest.chance)})` : '') +
    (verdict.sequential && !verdict.reason.includes(verdict.sequential) ? `; ${verdict.sequential}` : '')
  )
}

/** The suite's baseline directory (its own `baseline` option; Jest has no plugin), or undefined when the gate is off. */
export function jestBaselineDir(options: DescribeDecisionsOptions): string | undefined {
  return options.baseline === false ? undefined : baselineDir(options.baseline, jestContext('new'))
}

/** Run the baseline gate as the Vitest face does (after the failure-rate rule: {@link failureRate}); its messages name `jest -u`, the command that refreshes here. */
export async function baselineGate(name: string, result: EvalResult, options: DescribeDecisionsOptions, settings: RunSettings, dir: string, mode: UpdateMode): Promise<BaselineOutcome> {
  const context = jestContext(mode)
  const { path, file } = baselineLocation(dir, name, context)
  if (settings.debias === 'none') return oneOrderingOutcome(file)
  const gate = { alpha: options.alpha ?? DEFAULT_ALPHA, detectableDrop: options.detectableDrop ?? DEFAULT_DETECTABLE_DROP }
  const outcome = await runBaselineGate(name, result, { path, file, mode, ci: underCI(), gate })
  // The one gate decides (a stopped run's sequential test that found no regression has not decided it).
  const decided = check(name, result, settings, 'baseline', options.thresholds, outcome)
  return { ...outcome, pass: decided.verdict === 'pass', message: forJest(decided.reason) }
}

/** The shared messages name Vitest's update flag; under Jest the same flag is `jest -u`. */
export function forJest(message: string): string {
  return message.replaceAll('`vitest -u`', '`jest -u`').replaceAll('(vitest -u)', '(jest -u)')
}
