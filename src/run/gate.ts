/**
 * The one gate of a run: from what the run declared (thresholds, the failure-rate rule, a
 * baseline gate, letter snapshots) and what it measured (the result, the baseline
 * comparison, the snapshot comparisons), each check's verdict with its reason, and whether
 * the run passed. Pure. Every face (the Vitest suites, the CLI, the reporter, the job
 * summary, the merge of shards) renders this verdict and decides nothing itself.
 *
 * A check whose population was not scored is not measured, and a check not measured fails:
 * a gold class or a criterion with no scored decision, a threshold the run stopped before
 * deciding, a baseline gate that was not decided.
 */
import type { EvalResultJson } from '../core/result/result.ts'
import { THRESHOLD_KEYS, THRESHOLD_METRICS } from '../core/thresholds/metrics.ts'
import { stopEarlyOf, stopEarlySentence } from '../core/thresholds/sequential/verdict.ts'
import { thresholdTestName, thresholdVerdict, toBounds, type Bounds, type Threshold } from '../core/thresholds/verdict.ts'
import { escapeControl } from '../core/support/escape.ts'
import { failureRateProblem, failureRateUndecided } from './failure-rate.ts'

/** A check's verdict: `undecided` only while a run is still scoring ({@link MeasuredRun.final} false); at the end a check not decided fails. */
export type GateVerdict = 'pass' | 'fail' | 'undecided'

/** One check of a run. */
export interface GateCheck {
  /** `failureRate`, a threshold key (`balancedAccuracy`, a custom metric's name), `baseline`, or `snapshot:<name>`. */
  readonly key: string
  /** The test name: `balancedAccuracy ≥ 0.8`, `order consistency vs baseline`, `failure rate ≤ 0`. */
  readonly name: string
  readonly verdict: GateVerdict
  /** Why, one phrase: the measured value against its bound, or `not measured: …`. */
  readonly reason: string
  /** Whether the check failed (or is undecided) because its population was not scored. */
  readonly notMeasured: boolean
  /** The measured value a threshold bounds (`null`: not measurable); absent for other checks. */
  readonly value?: number | null
  /** A threshold's bounds. */
  readonly bounds?: Bounds
  /** The threshold as the user wrote it. */
  readonly threshold?: Threshold
  /** With `stopEarly`: how the looks decided the threshold. */
  readonly sequential?: string
  /** A threshold the measured value failed: which side of its bounds the value lies on. */
  readonly outside?: 'below' | 'above'
}

/** The gate of a run. */
export interface RunGate {
  /** Failure rate first, then thresholds (built-in keys in declaration order, then custom ones), the baseline, snapshots. */
  readonly checks: readonly GateCheck[]
  /** Every check passed (false with no result). */
  readonly passed: boolean
}

/** How a baseline gate ended, as the face that ran it reports it. */
export interface BaselineMeasure {
  /** `pass`, `regressed`, `written`, `updated`, or why nothing was compared (`missing`, `setup-changed`, `unpaired`, `one-ordering`, …). */
  readonly status: string
  /** One sentence for the report. */
  readonly message: string
  /** A run that stopped early: the sequential test's e-value (present only then). */
  readonly eValue?: number
  /** A run that stopped early: the sequential test's verdict; only `pass` (the detectable drop ruled out) passes a stopped run. */
  readonly sequential?: 'pass' | 'fail' | 'undecided'
}

/** A letter-snapshot comparison. */
export interface SnapshotMeasure {
  readonly matched: boolean
  readonly message: string
}

/** What a run declared. */
export interface DeclaredRun {
  /** The suite (or data file) name, for messages. */
  readonly name: string
  /** Thresholds by metric key. */
  readonly thresholds?: Readonly<Record<string, Threshold | undefined>> | undefined
  /** Largest share of labelled decisions that may fail to score, in [0, 1]. Default 0. */
  readonly maxFailureRate?: number | undefined
  /** Whether a baseline gate is declared (`order consistency vs baseline`). */
  readonly baseline?: boolean | undefined
  /** Names of letter snapshots declared. */
  readonly snapshots?: readonly string[] | undefined
}

/** What a run measured. */
export interface MeasuredRun {
  /** The result; `undefined` when the run was not scored. */
  readonly result: EvalResultJson | undefined
  /** How the baseline gate ended; `undefined` when it did not run. */
  readonly baseline?: BaselineMeasure | undefined
  /** Letter-snapshot comparisons by name. */
  readonly snapshots?: Readonly<Record<string, SnapshotMeasure>> | undefined
  /** `false` while the run is still scoring: a check not yet measured is `undecided` rather than failed. Default true. */
  readonly final?: boolean | undefined
}

/** The test name of the baseline gate. */
export const BASELINE_CHECK_NAME = 'order consistency vs baseline'

/** Baseline statuses that pass: compared without a significant drop, or (locally) written from this whole run. */
const BASELINE_PASSES: ReadonlySet<string> = new Set(['pass', 'written', 'updated'])

/** The test name of the failure-rate rule: `failure rate ≤ 0`. */
export function failureRateCheckName(maxFailureRate: number): string {
  return `failure rate ≤ ${maxFailureRate}`
}

/** Decide a run: each declared check's verdict, and whether the run passed. */
export function decideRun(declared: DeclaredRun, measured: MeasuredRun): RunGate {
  const final = measured.final !== false
  const { result } = measured
  const maxFailureRate = declared.maxFailureRate ?? 0
  const failure = result ? failureRateProblem(declared.name, result, maxFailureRate) : undefined
  const notMeasured = (key: string, name: string, why: string, extra: Partial<GateCheck> = {}): GateCheck => ({
    key,
    name,
    verdict: final ? 'fail' : 'undecided',
    reason: `not measured: ${why}`,
    notMeasured: true,
    ...extra,
  })
  const unscored = `"${declared.name}" was not scored`
  const checks: GateCheck[] = []
  const rateName = failureRateCheckName(maxFailureRate)
  const undecidedRate = result && !failure ? failureRateUndecided(result, maxFailureRate) : undefined
  if (!result) checks.push(notMeasured('failureRate', rateName, unscored))
  else if (undecidedRate) checks.push(notMeasured('failureRate', rateName, undecidedRate))
  else if (failure) checks.push({ key: 'failureRate', name: rateName, verdict: 'fail', reason: failure, notMeasured: false })
  else checks.push({ key: 'failureRate', name: rateName, verdict: 'pass', reason: `${result.failed ?? 0} of ${result.n + (result.failed ?? 0)} labelled decisions failed to score`, notMeasured: false })

  for (const [key, threshold] of orderedThresholds(declared.thresholds)) {
    const name = thresholdTestName(key, threshold)
    const base = { threshold, bounds: toBounds(threshold) }
    if (!result) checks.push(notMeasured(key, name, unscored, { ...base, value: null }))
    else if (failure) checks.push({ key, name, verdict: 'fail', reason: failure, notMeasured: false, ...base, value: measuredValue(result, key) })
    else checks.push(thresholdCheck(result, key, threshold, name, final))
  }

  if (declared.baseline) checks.push(baselineCheck(measured, failure, final, checks))

  for (const snapshot of declared.snapshots ?? []) {
    const key = `snapshot:${snapshot}`
    const outcome = Object.hasOwn(measured.snapshots ?? {}, snapshot) ? measured.snapshots![snapshot] : undefined
    if (!outcome) checks.push(notMeasured(key, snapshot, 'the snapshot was not compared'))
    else checks.push({ key, name: snapshot, verdict: outcome.matched ? 'pass' : 'fail', reason: outcome.message, notMeasured: false })
  }
  return { checks, passed: checks.every((check) => check.verdict === 'pass') }
}

/** The check of `key` in a gate (the first of that key). */
export function gateCheck(gate: RunGate, key: string): GateCheck | undefined {
  return gate.checks.find((check) => check.key === key)
}

/** Thresholds given, without `undefined` ones: built-in keys in declaration order, then the others in the order given. */
function orderedThresholds(thresholds: DeclaredRun['thresholds']): [string, Threshold][] {
  const entries = Object.entries(thresholds ?? {}).filter((entry): entry is [string, Threshold] => entry[1] !== undefined)
  const order = (key: string) => (THRESHOLD_METRICS.has(key) ? THRESHOLD_KEYS.indexOf(key) : THRESHOLD_KEYS.length)
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => order(a.entry[0]) - order(b.entry[0]) || a.i - b.i)
    .map(({ entry }) => entry)
}

/** The measured value a threshold key bounds: a built-in metric, else the custom metric of that name; `null` when there is none. */
function measuredValue(result: EvalResultJson, key: string): number | null {
  const builtin = THRESHOLD_METRICS.get(key)
  const value = builtin ? builtin.read(result) : Object.hasOwn(result.metrics ?? {}, key) ? result.metrics[key] : null
  return typeof value === 'number' && !Number.isNaN(value) ? value : null
}

/** One threshold's check on a scored run. */
function thresholdCheck(result: EvalResultJson, key: string, threshold: Threshold, name: string, final: boolean): GateCheck {
  const value = measuredValue(result, key)
  const base = { key, name, threshold, bounds: toBounds(threshold), value }
  const stop = stopEarlyOf(result)
  const sequential = stop ? stopEarlySentence(stop, key, threshold) : undefined
  const withSequential = sequential !== undefined ? { sequential } : {}
  const fail = (reason: string, notMeasured = true): GateCheck => ({ ...base, ...withSequential, verdict: notMeasured && !final ? 'undecided' : 'fail', reason, notMeasured })
  if (!THRESHOLD_METRICS.has(key) && !Object.hasOwn(result.metrics ?? {}, key))
    return fail(`unknown threshold "${key}": neither a built-in metric (${THRESHOLD_KEYS.join(', ')}) nor one of the suite's custom metrics`, false)
  // A run that stopped early is decided by its anytime-valid verdicts; one the looks left open was not measured.
  if (stop?.stopped) {
    const verdict = stop.verdicts[key] ?? 'undecided'
    if (verdict === 'pass') return { ...base, ...withSequential, verdict: 'pass', reason: sequential!, notMeasured: false }
    if (verdict === 'fail') return fail(sequential!, false)
    return fail(`not measured: ${sequential}`)
  }
  const unscored = unscoredPopulation(result, key)
  if (unscored) return fail(`not measured: ${unscored}`)
  const verdict = thresholdVerdict(key, threshold, value)
  if (verdict.pass) return { ...base, ...withSequential, verdict: 'pass', reason: `${formatMeasured(value)} meets ${name}`, notMeasured: false }
  if (value === null) return fail(`not measured: ${verdict.reason}`)
  return { ...fail(verdict.reason!, false), outside: base.bounds.min !== undefined && value < base.bounds.min ? 'below' : 'above' }
}

/**
 * Why a threshold's population was not all scored, or `undefined`: balanced accuracy with a
 * gold class none of whose decisions scored (the class is simply absent from the mean), the
 * worst criterion with a criterion none of whose decisions scored.
 */
function unscoredPopulation(result: EvalResultJson, key: string): string | undefined {
  const unscored = result.unscored
  const failures = Array.isArray(result.failures) ? result.failures : []
  const count = (match: (f: (typeof failures)[number]) => boolean) => {
    const n = failures.filter(match).length
    return n > 0 ? ` (${n} decision${n === 1 ? '' : 's'})` : ''
  }
  const list = (names: readonly string[], match: (name: string) => (f: (typeof failures)[number]) => boolean) => names.map((name) => `"${escapeControl(name)}"${count(match(name))}`).join(', ')
  if (key === 'balancedAccuracy' && unscored?.goldClasses?.length) {
    const classes = unscored.goldClasses
    return `gold class${classes.length === 1 ? '' : 'es'} ${list(classes, (gold) => (f) => f.gold === gold)} had no scored decision (every one failed to score), so balanced accuracy leaves ${classes.length === 1 ? 'it' : 'them'} out`
  }
  if (key === 'perCriterion' && unscored?.criteria?.length) {
    const criteria = unscored.criteria
    return `criterion ${list(criteria, (criterion) => (f) => f.criterion === criterion)} had no scored decision (every one failed to score), so the worst criterion is over the others only`
  }
  return undefined
}

/** The baseline gate's check; `before`: the failure-rate and threshold checks, which a written baseline names when they failed. */
function baselineCheck(measured: MeasuredRun, failure: string | undefined, final: boolean, before: readonly GateCheck[]): GateCheck {
  const key = 'baseline'
  const name = BASELINE_CHECK_NAME
  const undecided = (why: string): GateCheck => ({ key, name, verdict: final ? 'fail' : 'undecided', reason: `not measured: ${why}`, notMeasured: true })
  if (!measured.result) return undecided('the suite was not scored')
  if (failure) return { key, name, verdict: 'fail', reason: failure, notMeasured: false }
  const outcome = measured.baseline
  if (!outcome) return undecided('the baseline gate did not run')
  const stop = stopEarlyOf(measured.result)
  // A stopped run passes only when its sequential test ruled the detectable drop out; no regression yet is no verdict.
  if (stop?.stopped && outcome.status === 'pass' && outcome.sequential !== 'pass')
    return undecided(`the run stopped after ${stop.scored} of ${stop.total} decisions before the baseline gate was decided (${outcome.message})`)
  const pass = BASELINE_PASSES.has(outcome.status)
  // A baseline written by a run that failed its checks holds a failing model: said, never offered plainly for commit.
  const failed = before.filter((check) => check.verdict !== 'pass').map((check) => check.name)
  const reason = pass && outcome.status !== 'pass' && failed.length > 0 ? `${outcome.message.replace(/; commit it$/, '')}, by a run that failed ${failed.join(', ')}: review it before you commit it` : outcome.message
  return { key, name, verdict: pass ? 'pass' : 'fail', reason, notMeasured: false }
}

function formatMeasured(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(3)
}
