/**
 * GitHub Actions output: a Markdown table per suite for the job summary, and `::error`
 * annotations on the eval file for failed thresholds, regressions and scoring failures.
 */
import type { EvalResultJson } from '../core/result/result.ts'
import { isBuiltinThreshold, thresholdLabel, THRESHOLD_METRICS } from '../core/thresholds/metrics.ts'
import { stopEarlyLine, stopEarlyOf } from '../core/thresholds/sequential/verdict.ts'
import { formatP, hasTies, lettersLine, percent, tiedDetail, type TieCounts } from './format.ts'
import { runVerdict, type VerdictSeverity } from './run-verdict.ts'
import { checkMark, describeTests, summariseTests, testOutcome, type SuiteTest } from './suite-tests.ts'
import { escapeData, escapeMarkdown, escapeProperty, markdownCode } from './escape.ts'
import { formatThreshold, type Threshold } from '../core/thresholds/verdict.ts'
import { decideRun, gateCheck, type GateCheck, type RunGate } from '../run/gate.ts'

/**
 * One suite as the reporter saw it: the suite meta `describeDecisions` leaves
 * (structurally; this module does not import the Vitest layer) plus its file.
 */
export interface GitHubSuite {
  suite: string
  /** The eval file, relative to the repository root (annotations point at it). */
  file: string
  /** Thresholds by metric key (built-in keys or custom metric names): a lower bound or `{ min?, max? }`. */
  thresholds?: Readonly<Record<string, Threshold | undefined>>
  /** The metrics and manifest; absent when scoring failed. */
  result?: EvalResultJson
  /** Why scoring failed, in one line. */
  error?: string
  /** The suite's `maxFailureRate` (default 0). */
  maxFailureRate?: number
  /** The baseline gate's outcome, when the suite has one (`pass` as its test decided it). */
  baseline?: { status?: string; pass: boolean; message: string }
  /**
   * The suite's tests as Vitest ended them. When given, the suite is marked ✅ only if
   * every one ran and passed, so the summary agrees with the tests.
   */
  tests?: readonly SuiteTest[]
}

const pct = (value: number | null | undefined) => percent(value)

/** The summary's sign for a verdict's severity. */
const SEVERITY_SIGN: Readonly<Record<VerdictSeverity, string>> = { fail: '🔴', warn: '🟠', pass: '🟢', unknown: '⚪' }

/** One threshold check as the summary shows it: the one gate's check, with `pass` for its verdict. */
export interface ThresholdCheck extends GateCheck {
  /** The threshold as the suite declared it. */
  threshold: Threshold
  /** Whether the gate passed the check. */
  pass: boolean
}

/** The one gate's verdict on a suite as the reporter saw it (the baseline as its test decided it). */
export function suiteGate(suite: GitHubSuite): RunGate {
  // `pass` is what the baseline's test decided (the gate, when the suite ran); a failed one keeps failing here.
  const baseline = suite.baseline && { status: suite.baseline.pass ? (suite.baseline.status ?? 'pass') : 'failed', message: suite.baseline.message }
  return decideRun({ name: suite.suite, thresholds: suite.thresholds, maxFailureRate: suite.maxFailureRate, baseline: suite.baseline !== undefined }, { result: suite.result, baseline })
}

/** Threshold checks of a suite, each the one gate's verdict (the rule the threshold tests render). */
export function thresholdChecks(suite: GitHubSuite): ThresholdCheck[] {
  return suiteGate(suite)
    .checks.filter((check) => check.threshold !== undefined)
    .map((check) => ({ ...check, threshold: check.threshold!, pass: check.verdict === 'pass' }))
}

/** A value the way the summary prints it: built-in shares as percentages, anything else as a plain number. */
function show(key: string, value: number | null | undefined): string {
  if (isBuiltinThreshold(key) && isShare(key)) return pct(value)
  return typeof value === 'number' && Number.isFinite(value) ? String(Number(value.toFixed(4))) : 'n/a'
}

function isShare(key: string): boolean {
  const metric = THRESHOLD_METRICS.get(key)
  return metric !== undefined && metric.range[0] === 0 && metric.range[1] === 1
}

function showThreshold(key: string, threshold: Threshold): string {
  return formatThreshold(threshold, (n) => (isShare(key) ? pct(n) : String(n)))
}

/** The job-summary Markdown for all suites: one heading and one table each. */
export function githubSummary(suites: readonly GitHubSuite[]): string {
  const out = ['## Sceptic report', '']
  for (const suite of suites) {
    const gate = suiteGate(suite)
    const checks = thresholdChecks(suite)
    const tests = suite.tests ? summariseTests(suite.tests) : undefined
    const failed = !!suite.error || !gate.passed || (tests?.failed.length ?? 0) > 0
    // ⚠️: nothing failed, but not every check ran (filtered out, skipped, or none declared).
    const mark = failed ? '❌' : (tests?.ok ?? true) ? '✅' : '⚠️'
    out.push(`### ${mark} ${escapeMarkdown(suite.suite)}`, '', markdownCode(suite.file), '')
    const testLine = tests ? describeTests(tests, (name) => `“${escapeMarkdown(name)}”`) : null
    if (testLine) out.push(`**Tests:** ${testLine}`, '')
    if (suite.error) {
      out.push(`**Scoring failed:** ${escapeMarkdown(suite.error)}`, '')
      continue
    }
    const r = suite.result
    if (!r) continue
    const verdict = runVerdict(r)
    out.push(`${SEVERITY_SIGN[verdict.severity]} **${escapeMarkdown(verdict.sentence)}**`, '')
    out.push('| metric | value | bound | |', '| --- | --- | --- | --- |')
    const bound = (key: string) => checks.find((c) => c.key === key)
    const shown = new Set<string>()
    const row = (name: string, value: string, key?: string) => {
      const check = key ? bound(key) : undefined
      if (key) shown.add(key)
      const mark = check ? checkMark(check.pass, testOutcome(suite.tests, check.name), { pass: '✅', fail: '❌', notRun: '⚠️' }) : ''
      out.push(`| ${name} | ${value} | ${check ? showThreshold(check.key, check.threshold) : ''} | ${mark} |`)
    }
    row('balanced accuracy', `**${pct(r.balancedAccuracy)}**`, 'balancedAccuracy')
    row('order consistency', `**${pct(r.orderConsistency)}**`, 'orderConsistency')
    row('accuracy', `${pct(r.accuracy)} (chance ${pct(r.manifest.chance)})`, 'accuracy')
    // The order-robustness panel, when measured (or gated).
    if (r.circularAccuracy != null || bound('circularAccuracy')) {
      const chance = r.manifest.circularChance
      row('circular accuracy', `${pct(r.circularAccuracy)}${typeof chance === 'number' ? ` (uniform guesser ${pct(chance)})` : ''}`, 'circularAccuracy')
    }
    if (r.slotSensitivityGap != null || bound('slotSensitivityGap'))
      row('slot sensitivity gap', `${pct(r.slotSensitivityGap)} (position-blind 0)`, 'slotSensitivityGap')
    if (r.slotBias) row('slot bias', `χ² ${r.slotBias.chiSquare.toFixed(1)}, df ${r.slotBias.df}, ${formatP(r.slotBias.p)}, V ${r.slotBias.cramersV.toFixed(2)}`, bound('cramersV') ? 'cramersV' : undefined)
    if (r.pairwise || bound('positionConsistency')) row(thresholdLabel('positionConsistency'), `${pct(r.pairwise?.positionConsistency)}${r.pairwise ? ` of ${r.pairwise.pairs}` : ''}`, 'positionConsistency')
    if (r.pairwise || bound('preferenceFairness')) row(thresholdLabel('preferenceFairness'), `${show('preferenceFairness', r.pairwise?.preferenceFairness)} (fair 0)`, 'preferenceFairness')
    if (bound('perCriterion')) row(thresholdLabel('perCriterion'), pct(bound('perCriterion')!.value), 'perCriterion')
    row('letters picked', escapeMarkdown(lettersLine(r.letterDistribution, ' · ')))
    const stop = stopEarlyOf(r)
    row(
      'decisions',
      `${r.n}${r.manifest.unlabelledSkipped ? ` (${r.manifest.unlabelledSkipped} unlabelled skipped)` : ''}${r.failed ? `, ${r.failed} failed` : ''}` +
        (hasTies(r.manifest.tied) ? `, ${tiedCounts(r.manifest.tied)}` : '') +
        (stop?.stopped ? `, stopped early: ${stop.total - stop.scored} of ${stop.total} not scored (figures from the scored sample)` : ''),
    )
    row('debias', `${escapeMarkdown(r.manifest.debias)}, ${r.manifest.orderingsScored} orderings`)
    if (r.brier !== null) row('brier', r.brier.toFixed(3))
    // Every other gate (custom metrics, unknown keys) gets its own row: no gate is left out.
    for (const check of checks) if (!shown.has(check.key)) row(escapeMarkdown(thresholdLabel(check.key)), show(check.key, check.value), check.key)
    const stopLine = stopEarlyLine(r, thresholdLabel)
    if (stopLine) out.push('', `**${stop!.stopped ? 'Stopped early' : 'Stop early'}:** ${escapeMarkdown(stopLine)}`)
    const baseline = gateCheck(gate, 'baseline')
    if (baseline) out.push('', `${baseline.verdict === 'pass' ? '✅' : '❌'} **baseline:** ${escapeMarkdown(suite.baseline?.message ?? baseline.reason)}`)
    out.push('')
  }
  return out.join('\n')
}

/** `::error` workflow commands for every failed check, pointing at the eval file. */
export function githubAnnotations(suites: readonly GitHubSuite[]): string[] {
  const lines: string[] = []
  for (const suite of suites) {
    const error = (title: string, message: string) =>
      lines.push(`::error file=${escapeProperty(suite.file)},title=${escapeProperty(title)}::${escapeData(message)}`)
    if (suite.error) {
      error(`${suite.suite}: scoring failed`, suite.error)
      continue
    }
    const gate = suiteGate(suite)
    for (const check of thresholdChecks(suite))
      if (!check.pass)
        error(
          `${suite.suite} > ${check.name}`,
          failureText(check) +
            (suite.result ? `; letters picked ${lettersLine(suite.result.letterDistribution, ' ')}` : ''),
        )
    const baseline = gateCheck(gate, 'baseline')
    if (baseline && baseline.verdict !== 'pass') error(`${suite.suite} > ${baseline.name}`, suite.baseline?.message ?? baseline.reason)
  }
  return lines
}

/** Why a check failed, in the summary's units: `order consistency 40.0% is below the bound 80.0%`. */
function failureText(check: ThresholdCheck): string {
  const name = thresholdLabel(check.key)
  const value = check.value ?? null
  // Not measured, or failed by another rule (failure rate, a stopped run's bounds): the gate's reason.
  if (check.outside === undefined || value === null) return `${name}: ${check.reason}`
  const edge = check.outside === 'below' ? check.bounds?.min : check.bounds?.max
  return `${name} ${show(check.key, value)} is ${check.outside} the bound ${show(check.key, edge)}`
}

/** The tie counts as numbers (a run JSON could hold anything there): no string reaches the Markdown. */
function tiedCounts(tied: TieCounts): string {
  const counts = { decisions: Number(tied.decisions), picks: Number(tied.picks) }
  return `${counts.decisions} ${tiedDetail(counts)}`
}
