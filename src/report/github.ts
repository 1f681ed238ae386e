/**
 * GitHub Actions output for sceptic suites: a Markdown table per suite for the job
 * summary (`GITHUB_STEP_SUMMARY`) and `::error` workflow commands that annotate the
 * eval file for failed thresholds, regressions and scoring failures. Pure: strings
 * in, strings out; the reporter decides where they go.
 */
import type { EvalResultJson } from '../core/result.ts'

/**
 * One suite as the reporter saw it: the suite meta `describeDecisions` leaves
 * (structurally; this module does not import the Vitest layer) plus its file.
 */
export interface GitHubSuite {
  /** The suite name. */
  suite: string
  /** The eval file, relative to the repository root (annotations point at it). */
  file: string
  /** Lower bounds by metric key (`balancedAccuracy`, `orderConsistency`, `accuracy`, `perCriterion`). */
  thresholds?: Readonly<Record<string, number | undefined>>
  /** The metrics and manifest; absent when scoring failed. */
  result?: EvalResultJson
  /** Why scoring failed, in one line. */
  error?: string
  /** The baseline gate's outcome, when the suite has one. */
  baseline?: { pass: boolean; message: string }
}

const pct = (value: number | null | undefined) => (value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`)

/** Measured value of a threshold key, as the threshold test reads it. */
function measured(suite: GitHubSuite, key: string): number | null | undefined {
  const result = suite.result
  if (!result) return undefined
  if (key === 'perCriterion') {
    const values = Object.values(result.perCriterion)
    return values.length > 0 ? Math.min(...values) : null
  }
  return (result as unknown as Record<string, number | null>)[key]
}

/** Threshold checks of a suite: key, bound, value, pass. */
export function thresholdChecks(suite: GitHubSuite): { key: string; bound: number; value: number | null | undefined; pass: boolean }[] {
  return Object.entries(suite.thresholds ?? {})
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
    .map(([key, bound]) => {
      const value = measured(suite, key)
      return { key, bound, value, pass: typeof value === 'number' && value >= bound }
    })
}

const LABELS: Record<string, string> = {
  balancedAccuracy: 'balanced accuracy',
  orderConsistency: 'order consistency',
  accuracy: 'accuracy',
  perCriterion: 'worst criterion (balanced accuracy)',
}

/** The job-summary Markdown for all suites: one heading and one table each. */
export function githubSummary(suites: readonly GitHubSuite[]): string {
  const out = ['## Sceptic report', '']
  for (const suite of suites) {
    const checks = thresholdChecks(suite)
    const ok = !suite.error && checks.every((c) => c.pass) && (suite.baseline?.pass ?? true)
    out.push(`### ${ok ? '✅' : '❌'} ${escapeMarkdown(suite.suite)}`, '', `\`${escapeMarkdown(suite.file)}\``, '')
    if (suite.error) {
      out.push(`**Scoring failed:** ${escapeMarkdown(suite.error)}`, '')
      continue
    }
    const r = suite.result
    if (!r) continue
    out.push('| metric | value | bound | |', '| --- | --- | --- | --- |')
    const bound = (key: string) => checks.find((c) => c.key === key)
    const row = (name: string, value: string, key?: string) => {
      const check = key ? bound(key) : undefined
      out.push(`| ${name} | ${value} | ${check ? `≥ ${pct(check.bound)}` : ''} | ${check ? (check.pass ? '✅' : '❌') : ''} |`)
    }
    row('balanced accuracy', `**${pct(r.balancedAccuracy)}**`, 'balancedAccuracy')
    row('order consistency', `**${pct(r.orderConsistency)}**`, 'orderConsistency')
    row('accuracy', `${pct(r.accuracy)} (chance ${pct(r.manifest.chance)})`, 'accuracy')
    if (bound('perCriterion')) row(LABELS.perCriterion!, pct(measured(suite, 'perCriterion')), 'perCriterion')
    row('letters picked', Object.entries(r.letterDistribution).map(([l, v]) => `${l} ${Math.round(v * 100)}%`).join(' · '))
    row('decisions', `${r.n}${r.manifest.unlabelledSkipped ? ` (${r.manifest.unlabelledSkipped} unlabelled skipped)` : ''}${r.failed ? `, ${r.failed} failed` : ''}`)
    row('debias', `${r.manifest.debias}, ${r.manifest.orderingsScored} orderings`)
    if (r.brier !== null) row('brier', r.brier.toFixed(3))
    if (suite.baseline) out.push('', `${suite.baseline.pass ? '✅' : '❌'} **baseline:** ${escapeMarkdown(suite.baseline.message)}`)
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
    for (const check of thresholdChecks(suite))
      if (!check.pass)
        error(
          `${suite.suite} > ${check.key} ≥ ${check.bound}`,
          `${LABELS[check.key] ?? check.key} ${pct(check.value)} is below the bound ${pct(check.bound)}` +
            (suite.result ? `; letters picked ${Object.entries(suite.result.letterDistribution).map(([l, v]) => `${l}:${Math.round(v * 100)}%`).join(' ')}` : ''),
        )
    if (suite.baseline && !suite.baseline.pass) error(`${suite.suite} > order consistency vs baseline`, suite.baseline.message)
  }
  return lines
}

/** Workflow command data: `%`, CR and LF escaped (GitHub's toolkit `escapeData`). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** Workflow command property: as data, plus `:` and `,` (GitHub's toolkit `escapeProperty`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/** Keep user text (suite names, messages) from breaking a Markdown table. */
function escapeMarkdown(text: string): string {
  return text.replace(/[|\\`*_<>]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ')
}
