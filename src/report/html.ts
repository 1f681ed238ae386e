/**
 * The HTML report of one run or a pair, from `--json-out` and optionally `--records-out`.
 * No script and no external resource (its CSP forbids both), so it opens the same from
 * an e-mail, an artifact or a file share; every string from user data is escaped.
 */
import { eceNote } from '../core/statistics/ece-note.ts'
import { NO_DISTRIBUTION_NOTE, noDistributionCount } from '../core/metrics/no-distribution.ts'
import { own } from '../core/support/dict.ts'
import { ECE_MIN_ROWS } from '../core/statistics/calibration.ts'
import type { DecisionRecord, EvalResultJson } from '../core/result/result.ts'
import { isFiniteNumber, isObject } from '../core/support/guards.ts'
import { sortedLetters } from './html-format.ts'
import { formatInterval, hasTies, readoutText, tiedDetail } from './format.ts'
import { headlineComparison, pairedSection, pairRuns, verdictElement } from './html-paired.ts'
import { comparisonVerdict, runVerdict, type RunVerdict } from './run-verdict.ts'
import { robustnessBlock } from './html-robustness.ts'
import { CSS } from './html-style.ts'
import type { ReportRun } from './run-files.ts'
import { chanceByCriterion, expectedLetterShares, reliabilityBins } from '../core/metrics/from-records.ts'
import { eceFromBins } from '../core/metrics/headline.ts'
import { readExtras, type Range } from '../core/result/extras.ts'
import { barRows, columnChart, niceMax, percent, reliabilityChart } from './svg.ts'
import { escapeXml } from './escape.ts'
import { stopEarlyLine, stopEarlyOf } from '../core/thresholds/sequential/verdict.ts'
import { thresholdLabel } from '../core/thresholds/metrics.ts'
import { decideRun } from '../run/gate.ts'
import { z } from 'zod'
import { refuseUnknownOptions, type SameKeys } from '../core/support/options.ts'


export { chanceByCriterion, expectedLetterShares, reliabilityBins } from '../core/metrics/from-records.ts'
export { eceFromBins, type ReliabilityBin } from '../core/metrics/headline.ts'
export { readExtras, type Range, type ReportExtras } from '../core/result/extras.ts'
export { parseRecordsJsonl, parseResultJson } from './run-files.ts'
export type { ReportRun } from './run-files.ts'

/** Options for {@link renderHtmlReport}. */
export interface HtmlReportOptions {
  /** Page title. Default `Sceptic report`. */
  title?: string
  /** A timestamp to print in the header (left out by default, so the same input gives the same bytes). */
  generatedAt?: string
}

/** The keys of {@link HtmlReportOptions}, checked where they are given: a misspelled one is refused by name. */
export const HtmlReportOptionsSchema = z.strictObject({ title: z.string(), generatedAt: z.string() }).partial()
true satisfies SameKeys<z.input<typeof HtmlReportOptionsSchema>, HtmlReportOptions>

/**
 * The whole report page. One run: its headline numbers and charts. Two runs: both
 * side by side, a table of their headline numbers with the change, and the paired
 * comparison (`compareResults`) when both runs have records.
 */
export function renderHtmlReport(runs: ReportRun | readonly ReportRun[], options: HtmlReportOptions = {}): string {
  refuseUnknownOptions(HtmlReportOptionsSchema, options, 'renderHtmlReport options')
  const list: readonly ReportRun[] = Array.isArray(runs) ? runs : [runs as ReportRun]
  if (list.length < 1 || list.length > 2) throw new RangeError(`renderHtmlReport takes one or two runs, got ${list.length}`)
  const title = options.title ?? 'Sceptic report'
  const tags = list.length === 2 ? ['A', 'B'] : ['']
  const labels = list.map((run, i) => run.label ?? (list.length === 2 ? `run ${tags[i]}` : 'run'))
  // Both runs' letter histograms share one axis, so equal bars mean equal shares.
  const letterMax = niceMax(
    list.flatMap((run) => {
      const letters = sortedLetters(run.result)
      return [...letters.map((l) => run.result.letterDistribution[l] ?? 0), ...Object.values(expectedLetterShares(letters, run.records))]
    }),
  )
  const sections = list.map((run, i) => runSection(run, { tag: tags[i]!, label: labels[i]!, index: i, letterMax, verdict: list.length === 2 }))
  const pairing = list.length === 2 ? pairRuns(list) : null
  const body = [
    `<header><h1>${escapeXml(title)}</h1>`,
    `<p class="sub">${list.length === 2 ? `${escapeXml(labels[0]!)} <span class="vs">vs</span> ${escapeXml(labels[1]!)}` : escapeXml(labels[0]!)}` +
      (options.generatedAt ? ` · generated ${escapeXml(options.generatedAt)}` : '') +
      `</p></header>`,
    verdictElement(pageVerdict(list, pairing), true),
    list.length === 2 ? headlineComparison(list, labels) : '',
    `<div class="runs runs-${list.length}">${sections.join('')}</div>`,
    pairing ? pairedSection(pairing, labels) : '',
    `<footer><p>How to read each number, and when not to trust it: <code>docs/reading-the-report.md</code>. ` +
      `This page is self-contained: no script, no network.</p></footer>`,
  ]
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head><body><main>',
    ...body,
    '</main></body></html>',
    '',
  ].join('\n')
}

interface SectionContext {
  tag: string
  label: string
  index: number
  letterMax: number
  /** Whether the run shows its own verdict (two runs: the page's verdict is the comparison's). */
  verdict: boolean
}

const SEVERITY_ORDER = ['fail', 'warn', 'unknown', 'pass'] as const

/**
 * The page's verdict: the run's own; for two runs the paired comparison's, or, without
 * records to pair, both runs' verdicts, coloured by the worse.
 */
function pageVerdict(list: readonly ReportRun[], pairing: ReturnType<typeof pairRuns> | null): RunVerdict {
  if (list.length === 1) return runVerdict(list[0]!.result)
  if (pairing && 'comparison' in pairing) return comparisonVerdict(pairing.comparison)
  const [a, b] = list.map((run) => runVerdict(run.result)) as [RunVerdict, RunVerdict]
  const severity = SEVERITY_ORDER.find((s) => a.severity === s || b.severity === s)!
  return { severity, sentence: `A: ${a.sentence}; B: ${b.sentence}` }
}

function runSection(run: ReportRun, ctx: SectionContext): string {
  const { result } = run
  const m = result.manifest
  const records = run.records && run.records.length > 0 ? run.records : null
  const id = `run${ctx.index}`
  const heading = ctx.tag ? `<span class="tag">${ctx.tag}</span> ${escapeXml(ctx.label)}` : escapeXml(ctx.label)
  const meta = [
    `model <b>${escapeXml(String(m.model ?? m.scorer ?? 'unknown'))}</b>`,
    readoutText(m.readout) ? `readout <b>${escapeXml(readoutText(m.readout)!)}</b>` : '',
    typeof m.quantizationElsewhere === 'string' ? `8 bits <b>${escapeXml(m.quantizationElsewhere)}</b>` : '',
    `debias <b>${escapeXml(String(m.debias))}</b>, ${m.orderingsScored} ordering${m.orderingsScored === 1 ? '' : 's'} scored`,
    m.fingerprint ? `data fingerprint <code>${escapeXml(String(m.fingerprint))}</code>` : '',
    m.started ? `started ${escapeXml(String(m.started))}` : '',
    m.versions?.vitestSceptic ? `vitest-sceptic ${escapeXml(String(m.versions.vitestSceptic))}` : '',
  ].filter(Boolean)
  return [
    `<section class="run" id="${id}" aria-labelledby="${id}-h" data-run="${ctx.index}">`,
    `<h2 id="${id}-h">${heading}</h2>`,
    `<p class="meta">${meta.join(' · ')}</p>`,
    ctx.verdict ? verdictElement(runVerdict(result), false) : '',
    gateBlock(result, id),
    headlineCards(run),
    lettersBlock(run, records, id, ctx.letterMax),
    robustnessBlock(run.result, id),
    reliabilityBlock(run, records, id),
    criteriaBlock(run, records, id),
    '</section>',
  ].join('\n')
}

/** The run's gate as the CLI decided it (its `--threshold`s and failure rate, from the manifest): one row per check; none without thresholds. */
function gateBlock(result: EvalResultJson, id: string): string {
  const m = result.manifest
  if (!isObject(m.thresholds) || Object.keys(m.thresholds).length === 0) return ''
  const maxFailureRate = isFiniteNumber(m.maxFailureRate) ? m.maxFailureRate : 0
  const gate = decideRun({ name: 'run', thresholds: m.thresholds, maxFailureRate }, { result })
  const rows = gate.checks.map((check) => {
    const pass = check.verdict === 'pass'
    const value = check.value === undefined ? '' : check.value === null ? 'n/a' : check.value.toFixed(3)
    return `<tr class="${pass ? 'pass' : 'fail'}" data-check="${escapeXml(check.key)}"><th scope="row">${pass ? '✓' : '✗'} ${escapeXml(check.name)}</th><td>${value}</td><td class="reason">${escapeXml(check.reason)}</td></tr>`
  })
  return (
    `<table class="gate" id="${id}-gate"><caption>gate: ${gate.passed ? 'passed' : `failed (${gate.checks.filter((check) => check.verdict !== 'pass').length} of ${gate.checks.length} checks)`}</caption>` +
    `<thead><tr><th scope="col">check</th><th scope="col">value</th><th scope="col">why</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  )
}

function headlineCards(run: ReportRun): string {
  const r = run.result
  const m = r.manifest
  const x = readExtras(r)
  const levelText = x.intervals.level === null ? 'interval' : `${Math.round(x.intervals.level * 100)}% interval`
  // The method travels with a statistics Interval object; a fallback names itself.
  const methods = (r as unknown as { statistics?: { intervals?: Record<string, { method?: unknown } | undefined> } }).statistics?.intervals ?? {}
  const interval = (range: Range | null, key: string) => {
    const method = isObject(methods[key]) && typeof methods[key]!.method === 'string' ? (methods[key]!.method as string) : undefined
    return range ? `<span class="interval">${levelText} ${escapeXml(formatInterval({ lower: range[0], upper: range[1], method }))}</span>` : ''
  }
  const verdict = (key: string) => (x.verdicts[key] ? `<span class="verdict">${escapeXml(x.verdicts[key]!)}</span>` : '')
  const card = (metric: string, name: string, value: string, extra: string, warn = false) =>
    `<div class="card${warn ? ' warn' : ''}" data-metric="${escapeXml(metric)}"><dt>${name}</dt><dd><span class="value">${value}</span>${extra}</dd></div>`
  const majority = x.majorityBaseline
  const stop = stopEarlyOf(r)
  const failedRaw = (r as unknown as { failed?: unknown }).failed
  const failed = isFiniteNumber(failedRaw) ? failedRaw : 0
  const cards = [
    card(
      'balancedAccuracy',
      'balanced accuracy',
      percent(r.balancedAccuracy),
      interval(x.intervals.balancedAccuracy, 'balancedAccuracy') +
        (majority?.balancedAccuracy != null ? `<span class="note">majority baseline ${percent(majority.balancedAccuracy)}</span>` : '') +
        verdict('balancedAccuracy'),
    ),
    r.orderConsistency === null
      ? card('orderConsistency', 'order consistency', 'n/a', '<span class="note">one ordering scored: nothing here could expose a position prior</span>')
      : card(
          'orderConsistency',
          'order consistency',
          percent(r.orderConsistency),
          interval(x.intervals.orderConsistency, 'orderConsistency') + '<span class="note">same answer under every ordering</span>' + verdict('orderConsistency'),
          r.orderConsistency < 0.5,
        ),
    card(
      'accuracy',
      'accuracy',
      percent(r.accuracy),
      `<span class="note">chance ${percent(m.chance)}${majority?.accuracy != null ? ` · majority baseline ${percent(majority.accuracy)}` : ''}</span>` +
        interval(x.intervals.accuracy, 'accuracy') +
        verdict('accuracy'),
    ),
    card('ece', 'ECE', r.ece === null ? 'n/a' : r.ece.toFixed(3), eceCardNote(r)),
    card('brier', 'Brier', r.brier === null ? 'n/a' : r.brier.toFixed(3), '<span class="note">lower is better, on a scale from 0 (every answer certain and right) to 2 (every answer certain and wrong)</span>'),
    card(
      'n',
      'decisions',
      String(r.n),
      (m.unlabelledSkipped > 0 ? `<span class="note">${m.unlabelledSkipped} unlabelled skipped</span>` : '') +
        (failed > 0 ? `<span class="note">${failed} failed to score; metrics are over the ${r.n} scored</span>` : '') +
        // Short on the card (side-by-side runs stay aligned); the whole sentence on hover.
        (hasTies(m.tied) ? `<span class="note" title="${escapeXml(`${m.tied.decisions} ${tiedDetail(m.tied)}`)}">${escapeXml(String(m.tied.decisions))} tied: no single answer, counted wrong</span>` : '') +
        (stop?.stopped ? `<span class="note">stopped early: ${stop.total - stop.scored} of ${stop.total} not scored; every figure is from the scored sample</span>` : ''),
      failed > 0 || stop?.stopped === true,
    ),
    card('debias', 'debias', escapeXml(String(m.debias)), `<span class="note">${m.orderingsScored} ordering${m.orderingsScored === 1 ? '' : 's'} per decision</span>`),
  ]
  // Newer results carry custom metrics by name; shown as they come, three decimals.
  const metrics = (r as unknown as { metrics?: unknown }).metrics
  if (isObject(metrics))
    for (const [name, value] of Object.entries(metrics))
      if (isFiniteNumber(value)) cards.push(card('custom', escapeXml(name), Number.isInteger(value) ? String(value) : value.toFixed(3), ''))
  const overall = x.verdicts.overall ? `<p class="verdict overall">${escapeXml(x.verdicts.overall)}</p>` : ''
  const stopLine = stop ? stopEarlyLine(r, thresholdLabel) : undefined
  const stopped = stopLine ? `<p class="verdict stop-early">${stop!.stopped ? 'Stopped early: ' : ''}${escapeXml(stopLine)}</p>` : ''
  return `<dl class="headline">${cards.join('')}</dl>${stopped}${overall}`
}

/** The letters-picked histogram of a run: one column per letter, a position-blind reader's share marked. */
function lettersChart(r: EvalResultJson, records: readonly DecisionRecord[] | null, id: string, max: number | undefined) {
  const letters = sortedLetters(r)
  const expected = expectedLetterShares(letters, records)
  const columns = letters.map((letter) => ({ label: letter, value: own(r.letterDistribution, letter) ?? 0, expected: own(expected, letter) }))
  const words = columns.map((c) => `${c.label} ${percent(c.value, 0)} (expected ${percent(c.expected ?? 0, 0)})`).join(', ')
  const chart = columnChart(columns, {
    title: 'Letters picked',
    desc: `Share of all per-ordering picks on each letter: ${words}.`,
    ...(max === undefined ? {} : { max }),
    expectedLabel: 'a position-blind reader',
    idPrefix: `${id}-letters`,
  })
  return { letters, columns, chart }
}

/** The letters-picked histogram alone, as a standalone SVG file with the page's styles (a Vitest attachment). */
export function renderLettersSvg(run: ReportRun): string {
  const records = run.records && run.records.length > 0 ? run.records : null
  const { chart } = lettersChart(run.result, records, 'run0', undefined)
  return chart.replace('<svg ', '<svg xmlns="http://www.w3.org/2000/svg" ').replace('</desc>', `</desc><style>${CSS}</style>`)
}

function lettersBlock(run: ReportRun, records: readonly DecisionRecord[] | null, id: string, max: number): string {
  const r = run.result
  const { letters, columns, chart } = lettersChart(r, records, id, max)
  const top = columns.reduce<(typeof columns)[number] | null>((best, c) => (best === null || c.value > best.value ? c : best), null)
  const how = records
    ? 'Dashed marks: what an answerer that ignores position would show, from the records (each ordering spreads 1/k over its k letters).'
    : `Dashed marks: 1/${letters.length} per letter. Without the records this assumes every decision has ${letters.length} options; give <code>--records</code> for the exact line.`
  const noneNote =
    r.orderConsistency === null
      ? ' With one ordering per decision the letters follow where the gold answers happen to be listed, so the line is only a rough guide.'
      : ''
  return (
    `<figure class="block" data-block="letters"><h3>Letters picked</h3>${chart}` +
    `<figcaption>${top ? `Most picked: <b>${escapeXml(top.label)} ${percent(top.value)}</b> (expected ${percent(top.expected ?? 0)}). ` : ''}${how}${noneNote}</figcaption></figure>`
  )
}

/** The ECE card's note: the same reliability rule as the terminal report (core `eceNote`). */
function eceCardNote(r: EvalResultJson): string {
  if (r.ece === null && noDistributionCount(r.manifest) > 0) return `<span class="note">${escapeXml(NO_DISTRIBUTION_NOTE)}</span>`
  const { reliable, note } = eceNote(r)
  if (note) return `<span class="note">${escapeXml(note)}</span>`
  return reliable ? '<span class="note">above the noise floor of a perfectly calibrated model</span>' : ''
}

function reliabilityBlock(run: ReportRun, records: readonly DecisionRecord[] | null, id: string): string {
  if (!records)
    return (
      `<figure class="block missing" data-block="reliability"><h3>Reliability</h3>` +
      `<p class="absent">The reliability diagram needs the records of this run (<code>--records-out</code>); none were given.</p></figure>`
    )
  const bins = reliabilityBins(records)
  const ece = eceFromBins(bins)
  const nonEmpty = bins.filter((b) => b.count > 0)
  const chart = reliabilityChart(bins, {
    title: 'Reliability diagram',
    desc:
      'Accuracy against confidence in ten equal-width bins: ' +
      nonEmpty.map((b) => `${b.lower.toFixed(1)}–${b.upper.toFixed(1)}: ${b.count} decisions, accuracy ${percent(b.accuracy!)}`).join('; ') +
      '. The diagonal is perfect calibration.',
    idPrefix: `${id}-reliability`,
  })
  const rows = bins
    .map(
      (b) =>
        `<tr${b.count === 0 ? ' class="empty"' : ''}><td>${b.lower.toFixed(1)}–${b.upper.toFixed(1)}</td><td>${b.count}</td>` +
        `<td>${b.confidence === null ? '—' : percent(b.confidence)}</td><td>${b.accuracy === null ? '—' : percent(b.accuracy)}</td>` +
        `<td>${b.accuracy === null ? '—' : ((b.accuracy - b.confidence!) * 100).toFixed(1)}</td></tr>`,
    )
    .join('')
  return (
    `<figure class="block" data-block="reliability"><h3>Reliability</h3>${chart}` +
    `<figcaption>Bars: accuracy per confidence bin (confidence = the largest final probability); dots at the bin's mean confidence; numbers: decisions per bin. ` +
    `ECE from these bins ${ece === null ? 'n/a' : ece.toFixed(3)}.${records.length < ECE_MIN_ROWS ? ' With fewer than a few hundred decisions most bins are too small to read.' : ''}</figcaption>` +
    `<details><summary>Bins as a table</summary><table class="bins"><thead><tr><th scope="col">confidence</th><th scope="col">decisions</th><th scope="col">mean confidence</th><th scope="col">accuracy</th><th scope="col">gap (pp)</th></tr></thead><tbody>${rows}</tbody></table></details>` +
    `</figure>`
  )
}

function criteriaBlock(run: ReportRun, records: readonly DecisionRecord[] | null, id: string): string {
  const keys = Object.keys(run.result.perCriterion).sort()
  if (keys.length === 0) return ''
  const chance = records ? chanceByCriterion(records) : {}
  const rows = keys.map((key) => ({ label: key, value: run.result.perCriterion[key]!, reference: own(chance, key) }))
  const chart = barRows(rows, {
    title: 'Balanced accuracy per criterion',
    desc: rows.map((row) => `${row.label} ${row.value.toFixed(3)}${row.reference !== undefined ? ` (chance ${row.reference.toFixed(3)})` : ''}`).join(', '),
    referenceLabel: 'chance (a uniform guesser)',
    idPrefix: `${id}-criteria`,
  })
  return (
    `<figure class="block" data-block="criteria"><h3>Per criterion</h3>${chart}` +
    `<figcaption>Balanced accuracy within each criterion key${records ? '; ticks mark chance' : ''}. A good mean can hide one criterion at chance.</figcaption></figure>`
  )
}
