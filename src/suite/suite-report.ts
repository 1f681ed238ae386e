/**
 * The sceptic report of a run's suites, as every runner's reporter prints it: one block per
 * suite from its meta, with the one gate's marks and the tests as the runner ended them.
 */
import pc from 'picocolors'
import { type EvalResult } from '../core/index.ts'
import { escapeControl } from '../core/support/escape.ts'
import { THRESHOLD_METRICS } from '../core/thresholds/metrics.ts'
import { thresholdTestName } from '../core/thresholds/verdict.ts'
import { suiteGate, type GitHubSuite } from '../report/github.ts'
import { render } from '../report/index.ts'
import { checkMark, describeTests, summariseTests, testOutcome, type SuiteTest } from '../report/suite-tests.ts'
import { gateCheck } from '../run/gate.ts'
import { formatValue, thresholdMark, worstCriterion } from './assertions/format.ts'
import type { ScepticSuiteMeta } from './meta.ts'

/** One suite's report entry, collected from suite meta. */
export interface SuiteReport {
  /** The test file, relative to the root. */
  file: string
  /** The suite's meta. */
  meta: ScepticSuiteMeta
  /** Its tests as Vitest ended them: the report never shows a suite as passed when one failed or did not run. */
  tests?: SuiteTest[]
}

/** The whole report: one block per suite. */
export function renderReports(reports: readonly SuiteReport[], color: boolean): string {
  const c = pc.createColors(color)
  const blocks = reports.map((report) => renderSuite(report, color))
  const rule = c.dim('─'.repeat(60))
  return ['', c.bold(c.cyan(' SCEPTIC REPORT ')) + c.dim(` ${reports.length} suite${reports.length === 1 ? '' : 's'}`), ...blocks.flatMap((b) => [rule, b]), rule, ''].join('\n')
}

/** One suite's block: a heading, the core `render()` block with marks, then per-criterion and baseline verdicts. */
export function renderSuite({ file, meta, tests }: SuiteReport, color: boolean): string {
  const c = pc.createColors(color)
  // Every string from data or a user goes through the one escaper: no ESC, OSC 8 link or CR reaches the terminal.
  const heading = `${c.bold(escapeControl(meta.suite))}  ${c.dim(escapeControl(file))}`
  if (!meta.result) return [heading, c.red(`not scored: ${escapeControl(meta.error ?? 'scoring did not finish')}`)].join('\n')
  // The marks below are the verdicts' own; this line says which tests did not pass or run.
  const summary = tests ? summariseTests(tests) : undefined
  const testLine = summary ? describeTests(summary, (name) => `"${escapeControl(name)}"`) : null
  const result = meta.result
  const t = meta.thresholds
  // The one gate's verdict, the one the suite's tests rendered: a mark beside every thresholded built-in metric.
  const gate = suiteGate(githubSuite({ file, meta }))
  const passed = (key: string) => gateCheck(gate, key)?.verdict === 'pass'
  const unmeasured = (key: string) => gateCheck(gate, key)?.notMeasured === true
  // A failed check is failed by its value when the gate says on which side of the bound it lies.
  const byValue = (key: string) => gateCheck(gate, key)?.outside !== undefined
  const marks: Record<string, string> = {}
  for (const [key, threshold] of Object.entries(t))
    if (threshold !== undefined && key !== 'perCriterion' && THRESHOLD_METRICS.has(key))
      marks[key] = asTestEnded(thresholdMark(passed(key), threshold, key, unmeasured(key), byValue(key)), tests, thresholdTestName(key, threshold))
  // render() reads metrics and manifest only; meta carries no per-decision records.
  const lines = [heading, render({ ...result, records: [] } as EvalResult, { color, marks })]
  if (t.perCriterion !== undefined) {
    const worst = worstCriterion(result.perCriterion)
    const mark = asTestEnded(thresholdMark(passed('perCriterion'), t.perCriterion, undefined, unmeasured('perCriterion'), byValue('perCriterion')), tests, thresholdTestName('perCriterion', t.perCriterion))
    const paint = mark.startsWith('✗') ? c.red : mark.startsWith('⚠') ? c.yellow : c.green
    lines.push(`${'every criterion'.padEnd(19)}${paint(mark)}${worst ? c.dim(`   worst "${escapeControl(worst[0])}" ${formatValue(worst[1])}`) : ''}`)
  }
  if (meta.baseline) {
    const b = meta.baseline
    const verdict = b.pass ? c.green(`✓ ${b.status}`) : c.red(`✗ ${b.status}`)
    const message = escapeControl(b.message)
    lines.push(`${'baseline'.padEnd(19)}${verdict}   ${c.dim(escapeControl(b.file))}`, `  ${b.pass ? message : c.red(message)}`)
  }
  if (testLine) lines.push(`${'tests'.padEnd(19)}${summary!.failed.length ? c.red(`✗ ${testLine}`) : c.yellow(`⚠ ${testLine}`)}`)
  return lines.join('\n')
}


/** A suite's meta as the job summary and the gate read it. */
export function githubSuite({ file, meta, tests }: Pick<SuiteReport, 'file' | 'meta' | 'tests'>): GitHubSuite {
  return { ...meta, file, ...(tests ? { tests } : {}), thresholds: meta.thresholds as Readonly<Record<string, number | undefined>> }
}

/** A threshold mark (`✓ ≥ 0.50`) as its test ended: `✗ ≥ 0.50 test failed` or `⚠ ≥ 0.50 not run` when the bound was met but the test did not pass. */
function asTestEnded(mark: string, tests: readonly SuiteTest[] | undefined, name: string): string {
  if (!mark.startsWith('✓')) return mark
  const rest = mark.slice(1)
  return checkMark(true, testOutcome(tests, name), { pass: mark, fail: `✗${rest}`, notRun: `⚠${rest}` })
}
