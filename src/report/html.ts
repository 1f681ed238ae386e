/**
 * The HTML sceptic report: one self-contained file per run (or per pair of runs),
 * made from the `--json-out` document and, when given, the `--records-out` records.
 *
 * Pure: JSON in, an HTML string out. No script, no external resource (a Content
 * Security Policy in the page forbids both), so it opens the same from an e-mail, a
 * CI artifact or a file share, and prints. Every string that comes from user data
 * (ids, criterion keys, scorer names, file labels) is escaped.
 */
import { compareResults, type Comparison } from '../core/compare.ts'
import { eceNote } from '../core/ece-note.ts'
import { DataError } from '../core/errors.ts'
import { dict, own } from '../core/dict.ts'
import { binOf, ECE_BINS } from '../core/metrics.ts'
import { ECE_MIN_ROWS } from '../core/stats.ts'
import type { DecisionRecord, EvalResultJson } from '../core/result.ts'
import { robustnessBlock } from './html-robustness.ts'
import { barRows, columnChart, escapeXml, niceMax, percent, reliabilityChart, type ReliabilityBinView } from './svg.ts'

/** One run to report: its `--json-out` document and, optionally, its records. */
export interface ReportRun {
  /** The parsed `--json-out` document (extra keys, such as intervals, are read when present). */
  result: EvalResultJson
  /** The run's records (`--records-out`); the reliability diagram and the paired comparison need them. */
  records?: readonly DecisionRecord[] | null | undefined
  /** A name for the run, e.g. its file name. Default `run A` / `run B`. */
  label?: string | undefined
}

/** Options for {@link renderHtmlReport}. */
export interface HtmlReportOptions {
  /** Page title. Default `Sceptic report`. */
  title?: string
  /** A timestamp to print in the header (left out by default, so the same input gives the same bytes). */
  generatedAt?: string
}

/** A `[lower, upper]` interval, however the JSON spelled it. */
export type Range = readonly [lower: number, upper: number]

/** The optional "honest numbers" a result JSON may carry. Every field may be absent. */
export interface ReportExtras {
  /** Intervals of the headline numbers, and their confidence level when the JSON says. */
  intervals: { accuracy: Range | null; balancedAccuracy: Range | null; orderConsistency: Range | null; level: number | null }
  /** Majority-class baseline: its accuracy and balanced accuracy, when given. */
  majorityBaseline: { accuracy: number | null; balancedAccuracy: number | null } | null
  /** Verdict sentences by headline (`accuracy`, `balancedAccuracy`, `orderConsistency`, or `overall`). */
  verdicts: Record<string, string>
}

/** One bin of the reliability diagram. */
export interface ReliabilityBin extends ReliabilityBinView {
  /** Hits in the bin. */
  hits: number
}

const LEVEL_DEFAULT_TEXT = 'interval'

/**
 * Read the optional intervals, majority baseline and verdicts from a result JSON (top
 * level, or under `honest`, `honestNumbers` or `statistics`).
 * Accepts `[lo, hi]` arrays and `{ lower, upper }` objects (the statistics module's
 * `Interval`), a baseline as a number (its accuracy) or an object, and verdicts as
 * strings or `{ message }` objects; anything else is ignored rather than guessed at.
 */
export function readExtras(result: EvalResultJson): ReportExtras {
  const top = result as unknown as Record<string, unknown>
  // At the top level, or nested under the name the statistics module's output is stored by.
  const raw =
    [top, top.honest, top.honestNumbers, top.statistics].find(
      (o): o is Record<string, unknown> => isObject(o) && ('intervals' in o || 'majorityBaseline' in o || 'verdicts' in o),
    ) ?? top
  const intervals = isObject(raw.intervals) ? raw.intervals : {}
  let level = typeof intervals.level === 'number' ? intervals.level : null
  const range = (value: unknown): Range | null => {
    if (Array.isArray(value) && value.length === 2 && value.every(isFiniteNumber)) return [value[0] as number, value[1] as number]
    if (isObject(value) && isFiniteNumber(value.lower) && isFiniteNumber(value.upper)) {
      if (level === null && isFiniteNumber(value.level)) level = value.level
      return [value.lower, value.upper]
    }
    return null
  }
  const extras: ReportExtras = {
    intervals: {
      accuracy: range(intervals.accuracy),
      balancedAccuracy: range(intervals.balancedAccuracy),
      orderConsistency: range(intervals.orderConsistency),
      level: null,
    },
    majorityBaseline: null,
    verdicts: {},
  }
  extras.intervals.level = level
  const majority = raw.majorityBaseline
  if (isFiniteNumber(majority)) extras.majorityBaseline = { accuracy: majority, balancedAccuracy: null }
  else if (isObject(majority))
    extras.majorityBaseline = {
      accuracy: isFiniteNumber(majority.accuracy) ? majority.accuracy : null,
      balancedAccuracy: isFiniteNumber(majority.balancedAccuracy) ? majority.balancedAccuracy : null,
    }
  const verdictText = (value: unknown): string | null =>
    typeof value === 'string' && value !== '' ? value : isObject(value) && typeof value.message === 'string' && value.message !== '' ? value.message : null
  if (typeof raw.verdict === 'string' && raw.verdict !== '') extras.verdicts.overall = raw.verdict
  if (isObject(raw.verdicts))
    for (const [key, value] of Object.entries(raw.verdicts)) {
      const text = verdictText(value)
      if (text !== null) extras.verdicts[key] = text
    }
  return extras
}

/**
 * Reliability bins from records: confidence = the largest final probability, hit =
 * prediction equals gold, {@link ECE_BINS} equal-width right-closed bins (`binOf`,
 * the same binning as the run's ECE).
 */
export function reliabilityBins(records: readonly DecisionRecord[], bins = ECE_BINS): ReliabilityBin[] {
  const out: ReliabilityBin[] = Array.from({ length: bins }, (_, k) => ({
    lower: k / bins,
    upper: (k + 1) / bins,
    count: 0,
    hits: 0,
    accuracy: null,
    confidence: null,
  }))
  const confSum = new Array<number>(bins).fill(0)
  for (const record of records) {
    const confidence = Math.max(...Object.values(record.probabilities))
    const k = binOf(confidence, bins)
    out[k]!.count++
    confSum[k]! += confidence
    if (record.prediction === record.gold) out[k]!.hits++
  }
  out.forEach((bin, k) => {
    if (bin.count === 0) return
    bin.accuracy = bin.hits / bin.count
    bin.confidence = confSum[k]! / bin.count
  })
  return out
}

/** ECE from reliability bins: Σ (count/n)·|accuracy − mean confidence|; `null` when the bins are empty. */
export function eceFromBins(bins: readonly ReliabilityBin[]): number | null {
  const n = bins.reduce((s, b) => s + b.count, 0)
  if (n === 0) return null
  return bins.reduce((s, b) => (b.count === 0 ? s : s + (b.count / n) * Math.abs(b.accuracy! - b.confidence!)), 0)
}

/**
 * The letter shares a position-blind answerer would produce: each ordering of a
 * k-option decision spreads 1/k over letters A..(k-th letter), weighted by the
 * orderings scored. With one option count throughout this is 1/k per letter; with
 * mixed counts the late letters get less, as they must. Without records: 1/letters.
 */
export function expectedLetterShares(letters: readonly string[], records?: readonly DecisionRecord[] | null): Record<string, number> {
  const out = dict<number>()
  if (!records || records.length === 0) {
    for (const letter of letters) out[letter] = letters.length === 0 ? 0 : 1 / letters.length
    return out
  }
  const weight = new Array<number>(letters.length).fill(0)
  let total = 0
  for (const record of records) {
    const k = Object.keys(record.probabilities).length
    const orderings = Math.max(1, record.picks.length)
    if (k === 0) continue
    total += orderings
    for (let i = 0; i < Math.min(k, letters.length); i++) weight[i]! += orderings / k
  }
  letters.forEach((letter, i) => (out[letter] = total === 0 ? 0 : weight[i]! / total))
  return out
}

/** Balanced accuracy of a uniform guesser per criterion: the mean of 1/options over its records. */
export function chanceByCriterion(records: readonly DecisionRecord[]): Record<string, number> {
  const sums = new Map<string, [number, number]>()
  for (const record of records) {
    const k = Object.keys(record.probabilities).length
    if (k === 0) continue
    const entry = sums.get(record.criterion) ?? [0, 0]
    entry[0] += 1 / k
    entry[1]++
    sums.set(record.criterion, entry)
  }
  return dict([...sums].map(([key, [sum, count]]) => [key, sum / count]))
}

/**
 * The whole report page. One run: its headline numbers and charts. Two runs: both
 * side by side, a table of their headline numbers with the change, and the paired
 * comparison (`compareResults`) when both runs have records.
 */
export function renderHtmlReport(runs: ReportRun | readonly ReportRun[], options: HtmlReportOptions = {}): string {
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
  const sections = list.map((run, i) => runSection(run, { tag: tags[i]!, label: labels[i]!, index: i, letterMax }))
  const body = [
    `<header><h1>${escapeXml(title)}</h1>`,
    `<p class="sub">${list.length === 2 ? `${escapeXml(labels[0]!)} <span class="vs">vs</span> ${escapeXml(labels[1]!)}` : escapeXml(labels[0]!)}` +
      (options.generatedAt ? ` · generated ${escapeXml(options.generatedAt)}` : '') +
      `</p></header>`,
    list.length === 2 ? headlineComparison(list, labels) : '',
    `<div class="runs runs-${list.length}">${sections.join('')}</div>`,
    list.length === 2 ? pairedSection(list, labels) : '',
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
}

function runSection(run: ReportRun, ctx: SectionContext): string {
  const { result } = run
  const m = result.manifest
  const records = run.records && run.records.length > 0 ? run.records : null
  const id = `run${ctx.index}`
  const heading = ctx.tag ? `<span class="tag">${ctx.tag}</span> ${escapeXml(ctx.label)}` : escapeXml(ctx.label)
  const meta = [
    `model <b>${escapeXml(String(m.model ?? m.scorer ?? 'unknown'))}</b>`,
    `debias <b>${escapeXml(String(m.debias))}</b>, ${m.orderingsScored} ordering${m.orderingsScored === 1 ? '' : 's'} scored`,
    m.fingerprint ? `data fingerprint <code>${escapeXml(String(m.fingerprint))}</code>` : '',
    m.started ? `started ${escapeXml(String(m.started))}` : '',
    m.versions?.vitestSceptic ? `vitest-sceptic ${escapeXml(String(m.versions.vitestSceptic))}` : '',
  ].filter(Boolean)
  return [
    `<section class="run" id="${id}" aria-labelledby="${id}-h" data-run="${ctx.index}">`,
    `<h2 id="${id}-h">${heading}</h2>`,
    `<p class="meta">${meta.join(' · ')}</p>`,
    headlineCards(run),
    lettersBlock(run, records, id, ctx.letterMax),
    robustnessBlock(run.result, id),
    reliabilityBlock(run, records, id),
    criteriaBlock(run, records, id),
    '</section>',
  ].join('\n')
}

function headlineCards(run: ReportRun): string {
  const r = run.result
  const m = r.manifest
  const x = readExtras(r)
  const levelText = x.intervals.level === null ? LEVEL_DEFAULT_TEXT : `${Math.round(x.intervals.level * 100)}% interval`
  const interval = (range: Range | null) =>
    range ? `<span class="interval">${levelText} [${(range[0] * 100).toFixed(1)}, ${(range[1] * 100).toFixed(1)}]</span>` : ''
  const verdict = (key: string) => (x.verdicts[key] ? `<span class="verdict">${escapeXml(x.verdicts[key]!)}</span>` : '')
  const card = (metric: string, name: string, value: string, extra: string, warn = false) =>
    `<div class="card${warn ? ' warn' : ''}" data-metric="${metric}"><dt>${name}</dt><dd><span class="value">${value}</span>${extra}</dd></div>`
  const majority = x.majorityBaseline
  const failedRaw = (r as unknown as { failed?: unknown }).failed
  const failed = isFiniteNumber(failedRaw) ? failedRaw : 0
  const cards = [
    card(
      'balancedAccuracy',
      'balanced accuracy',
      percent(r.balancedAccuracy),
      interval(x.intervals.balancedAccuracy) +
        (majority?.balancedAccuracy != null ? `<span class="note">majority baseline ${percent(majority.balancedAccuracy)}</span>` : '') +
        verdict('balancedAccuracy'),
    ),
    r.orderConsistency === null
      ? card('orderConsistency', 'order consistency', 'n/a', '<span class="note">one ordering scored: nothing here could expose a position prior</span>')
      : card(
          'orderConsistency',
          'order consistency',
          percent(r.orderConsistency),
          interval(x.intervals.orderConsistency) + '<span class="note">same answer under every ordering</span>' + verdict('orderConsistency'),
          r.orderConsistency < 0.5,
        ),
    card(
      'accuracy',
      'accuracy',
      percent(r.accuracy),
      `<span class="note">chance ${percent(m.chance)}${majority?.accuracy != null ? ` · majority baseline ${percent(majority.accuracy)}` : ''}</span>` +
        interval(x.intervals.accuracy) +
        verdict('accuracy'),
    ),
    card('ece', 'ECE', r.ece === null ? 'n/a' : r.ece.toFixed(3), eceCardNote(r)),
    card('brier', 'Brier', r.brier === null ? 'n/a' : r.brier.toFixed(3), '<span class="note">0 certain and right, 2 certain and wrong</span>'),
    card(
      'n',
      'decisions',
      String(r.n),
      (m.unlabelledSkipped > 0 ? `<span class="note">${m.unlabelledSkipped} unlabelled skipped</span>` : '') +
        (failed > 0 ? `<span class="note">${failed} failed to score; metrics are over the ${r.n} scored</span>` : ''),
      failed > 0,
    ),
    card('debias', 'debias', escapeXml(String(m.debias)), `<span class="note">${m.orderingsScored} ordering${m.orderingsScored === 1 ? '' : 's'} per decision</span>`),
  ]
  // Newer results carry custom metrics by name; shown as they come, three decimals.
  const metrics = (r as unknown as { metrics?: unknown }).metrics
  if (isObject(metrics))
    for (const [name, value] of Object.entries(metrics))
      if (isFiniteNumber(value)) cards.push(card('custom', escapeXml(name), Number.isInteger(value) ? String(value) : value.toFixed(3), ''))
  const overall = x.verdicts.overall ? `<p class="verdict overall">${escapeXml(x.verdicts.overall)}</p>` : ''
  return `<dl class="headline">${cards.join('')}</dl>${overall}`
}

function lettersBlock(run: ReportRun, records: readonly DecisionRecord[] | null, id: string, max: number): string {
  const r = run.result
  const letters = sortedLetters(r)
  const expected = expectedLetterShares(letters, records)
  const columns = letters.map((letter) => ({ label: letter, value: own(r.letterDistribution, letter) ?? 0, expected: own(expected, letter) }))
  const words = columns.map((c) => `${c.label} ${percent(c.value, 0)} (expected ${percent(c.expected ?? 0, 0)})`).join(', ')
  const chart = columnChart(columns, {
    title: 'Letters picked',
    desc: `Share of all per-ordering picks on each letter: ${words}.`,
    max,
    expectedLabel: 'a position-blind reader',
    idPrefix: `${id}-letters`,
  })
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

function headlineComparison(runs: readonly ReportRun[], labels: readonly string[]): string {
  const [a, b] = [runs[0]!.result, runs[1]!.result]
  const row = (name: string, va: number | null, vb: number | null, format: (v: number) => string, pp: boolean) => {
    const delta = va === null || vb === null ? '—' : pp ? signedPp(vb - va) : signed(vb - va, 3)
    return `<tr><th scope="row">${name}</th><td>${va === null ? 'n/a' : format(va)}</td><td>${vb === null ? 'n/a' : format(vb)}</td><td>${delta}</td></tr>`
  }
  const fixed = (v: number) => v.toFixed(3)
  const same = a.manifest.fingerprint && a.manifest.fingerprint === b.manifest.fingerprint
  const dataNote = !a.manifest.fingerprint || !b.manifest.fingerprint
    ? ''
    : same
      ? `<p class="note">Same data: fingerprints equal (<code>${escapeXml(String(a.manifest.fingerprint))}</code>).</p>`
      : `<p class="warn-text">Different data: fingerprints <code>${escapeXml(String(a.manifest.fingerprint))}</code> and <code>${escapeXml(String(b.manifest.fingerprint))}</code> differ, so these numbers are not comparable.</p>`
  return (
    `<section class="compare" aria-labelledby="cmp-h"><h2 id="cmp-h">Side by side</h2>` +
    `<table class="headline-table"><thead><tr><th scope="col"></th><th scope="col"><span class="tag">A</span> ${escapeXml(labels[0]!)}</th>` +
    `<th scope="col"><span class="tag">B</span> ${escapeXml(labels[1]!)}</th><th scope="col">B − A</th></tr></thead><tbody>` +
    row('balanced accuracy', a.balancedAccuracy, b.balancedAccuracy, (v) => percent(v), true) +
    row('order consistency', a.orderConsistency, b.orderConsistency, (v) => percent(v), true) +
    row('accuracy', a.accuracy, b.accuracy, (v) => percent(v), true) +
    row('chance', a.manifest.chance, b.manifest.chance, (v) => percent(v), true) +
    row('ECE', a.ece, b.ece, fixed, false) +
    row('Brier', a.brier, b.brier, fixed, false) +
    `<tr><th scope="row">decisions</th><td>${a.n}</td><td>${b.n}</td><td>${b.n - a.n === 0 ? '0' : signedInt(b.n - a.n)}</td></tr>` +
    `<tr><th scope="row">debias</th><td>${escapeXml(String(a.manifest.debias))}</td><td>${escapeXml(String(b.manifest.debias))}</td><td></td></tr>` +
    `</tbody></table>${dataNote}</section>`
  )
}

/** The paired comparison, or a sentence on why there is none. */
function pairedSection(runs: readonly ReportRun[], labels: readonly string[]): string {
  const open = `<section class="paired" aria-labelledby="paired-h"><h2 id="paired-h">Paired comparison</h2>`
  const [ra, rb] = [runs[0]!, runs[1]!]
  if (!ra.records?.length || !rb.records?.length) {
    const missing = [!ra.records?.length ? 'A' : '', !rb.records?.length ? 'B' : ''].filter(Boolean).join(' and ')
    return `${open}<p class="absent">A paired test needs the records of both runs; ${missing} ${missing.length > 1 ? 'have' : 'has'} none (<code>--records-out</code>).</p></section>`
  }
  let comparison: Comparison
  try {
    comparison = compareResults({ records: ra.records, manifest: ra.result.manifest }, { records: rb.records, manifest: rb.result.manifest }, { labels: ['A', 'B'] })
  } catch (error) {
    if (!(error instanceof DataError)) throw error
    return `${open}<p class="absent warn-text">No paired comparison: ${escapeXml(error.message)}</p></section>`
  }
  return `${open}${pairedBody(comparison, labels)}</section>`
}

function pairedBody(c: Comparison, labels: readonly string[]): string {
  const t = c.table
  const m = c.mcnemar
  const ba = c.balancedAccuracy
  const table =
    `<table class="paired-table" data-n="${c.n}"><caption>Decisions by who got them right (${c.n} paired by id)</caption>` +
    `<thead><tr><th scope="col"></th><th scope="col">B right</th><th scope="col">B wrong</th></tr></thead><tbody>` +
    `<tr><th scope="row">A right</th><td data-cell="bothRight">both right <b>${t.bothRight}</b></td><td data-cell="onlyA">only A <b>${t.onlyA}</b></td></tr>` +
    `<tr><th scope="row">A wrong</th><td data-cell="onlyB">only B <b>${t.onlyB}</b></td><td data-cell="neither">neither <b>${t.neither}</b></td></tr>` +
    `</tbody></table>`
  const oc = c.orderConsistency
  const significant = m.pTwoSided < 0.05
  const verdict =
    m.discordant === 0
      ? 'No difference in hits: every decision was answered equally right or wrong by both.'
      : significant
        ? `${c.accuracy.difference > 0 ? 'B' : 'A'} gets more decisions right (exact McNemar p = ${pValue(m.pTwoSided)}).`
        : `No significant difference in hits (p = ${pValue(m.pTwoSided)}); at ${c.n} decisions only changes of about ${(c.minimumDetectableDifference * 100).toFixed(1)} pp or more are reliably detectable.`
  const facts = [
    `<dt>A</dt><dd>${escapeXml(labels[0]!)}</dd>`,
    `<dt>B</dt><dd>${escapeXml(labels[1]!)}</dd>`,
    `<dt>McNemar (exact)</dt><dd data-value="mcnemar">p = <b>${pValue(m.pTwoSided)}</b> two-sided · mid-p ${pValue(m.pMid)} · ${m.discordant} discordant pair${m.discordant === 1 ? '' : 's'}</dd>`,
    `<dt>accuracy</dt><dd>A ${percent(c.accuracy.a)} · B ${percent(c.accuracy.b)} · Δ ${signedPp(c.accuracy.difference)}</dd>`,
    `<dt>balanced accuracy</dt><dd>A ${percent(ba.a)} · B ${percent(ba.b)} · Δ ${signedPp(ba.difference)} ` +
      `<span class="interval">${Math.round(ba.interval.level * 100)}% paired bootstrap [${signed(ba.interval.lower * 100, 1)}, ${signed(ba.interval.upper * 100, 1)}] pp</span></dd>`,
    oc === null
      ? `<dt>order consistency</dt><dd>n/a: no decision was scored under several orderings on both sides</dd>`
      : `<dt>order consistency</dt><dd>A ${percent(oc.a)} · B ${percent(oc.b)} · Δ ${signedPp(oc.difference)} · exact p = ${pValue(oc.mcnemar.pTwoSided)} ` +
        `<span class="note">(${oc.table.onlyB} became consistent, ${oc.table.onlyA} stopped, over ${oc.decisions} decisions)</span></dd>`,
  ]
  return `<div class="paired-grid">${table}<dl class="facts">${facts.join('')}</dl></div><p class="verdict overall">${escapeXml(verdict)}</p>`
}

function sortedLetters(result: EvalResultJson): string[] {
  return Object.keys(result.letterDistribution).sort((x, y) => (x.length - y.length) || (x < y ? -1 : x > y ? 1 : 0))
}

const pValue = (p: number) => (p >= 0.001 ? p.toFixed(4).replace(/0+$/, '').replace(/\.$/, '.0') : p.toExponential(2))
const signed = (value: number, digits: number) => `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(digits)}`
const signedPp = (value: number) => `${signed(value * 100, 1)} pp`
const signedInt = (value: number) => `${value > 0 ? '+' : '−'}${Math.abs(value)}`
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

// ---------------------------------------------------------------------------
// Reading the files the CLI is given (pure: text in, checked values out)

/**
 * Parse and check a `--json-out` document. A {@link DataError} names the file and the
 * first field that is missing or of the wrong type.
 */
export function parseResultJson(text: string, file: string): EvalResultJson {
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new DataError(`not JSON (${(error as Error).message}); expected the output of sceptic evaluate --json-out`, { file })
  }
  if (!isObject(value)) throw new DataError('expected a JSON object from sceptic evaluate --json-out', { file })
  const need = (field: string, ok: boolean, what: string) => {
    if (!ok) throw new DataError(`must be ${what}; is this the output of sceptic evaluate --json-out?`, { file, field })
  }
  const numberOrNull = (v: unknown) => v === null || isFiniteNumber(v)
  need('accuracy', isFiniteNumber(value.accuracy), 'a number')
  need('balancedAccuracy', isFiniteNumber(value.balancedAccuracy), 'a number')
  need('orderConsistency', numberOrNull(value.orderConsistency), 'a number or null')
  need('ece', numberOrNull(value.ece), 'a number or null')
  need('brier', numberOrNull(value.brier), 'a number or null')
  need('n', Number.isInteger(value.n) && (value.n as number) >= 0, 'a non-negative integer')
  need('perCriterion', isObject(value.perCriterion) && Object.values(value.perCriterion).every(isFiniteNumber), 'an object of numbers')
  need('letterDistribution', isObject(value.letterDistribution) && Object.values(value.letterDistribution).every(isFiniteNumber), 'an object of numbers')
  need('manifest', isObject(value.manifest), 'an object')
  const manifest = value.manifest as Record<string, unknown>
  need('manifest.debias', typeof manifest.debias === 'string', 'a string')
  need('manifest.orderingsScored', Number.isInteger(manifest.orderingsScored), 'an integer')
  need('manifest.chance', isFiniteNumber(manifest.chance), 'a number')
  need('manifest.unlabelledSkipped', manifest.unlabelledSkipped === undefined || Number.isInteger(manifest.unlabelledSkipped), 'an integer')
  if (manifest.unlabelledSkipped === undefined) manifest.unlabelledSkipped = 0
  return value as unknown as EvalResultJson
}

/**
 * Parse and check a `--records-out` JSONL file. Blank lines are skipped; a bad line
 * is a {@link DataError} with the file, the line number and the field.
 */
export function parseRecordsJsonl(text: string, file: string): DecisionRecord[] {
  const out: DecisionRecord[] = []
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return
      const at = { file, line: i + 1 }
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        throw new DataError('not a JSON line; expected a record from sceptic evaluate --records-out', at)
      }
      if (!isObject(value)) throw new DataError('expected a JSON object (a record from --records-out)', at)
      for (const field of ['id', 'criterion', 'gold', 'prediction'] as const)
        if (typeof value[field] !== 'string') throw new DataError('must be a string', { ...at, field })
      const probabilities = value.probabilities
      if (!isObject(probabilities) || Object.keys(probabilities).length === 0 || !Object.values(probabilities).every(isFiniteNumber))
        throw new DataError('must be a non-empty object of numbers', { ...at, field: 'probabilities' })
      for (const field of ['picks', 'letters'] as const) {
        const list = value[field]
        if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw new DataError('must be an array of strings', { ...at, field })
      }
      out.push(value as unknown as DecisionRecord)
    })
  return out
}

const CSS = `
:root{--ink:#1d2330;--muted:#5b6475;--line:#d8dde6;--bar:#3b6fb6;--bar2:#8fb0dd;--warn:#b4530f;--bg:#fff;--card:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:1240px;margin:0 auto;padding:24px 28px 40px}
h1{font-size:26px;margin:0 0 2px}h2{font-size:19px;margin:26px 0 8px}h3{font-size:15px;margin:18px 0 6px}
.sub,.meta,.note,figcaption,footer{color:var(--muted)}
.sub{margin:0 0 12px}.vs{font-style:italic}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--card);padding:0 3px;border-radius:3px}
.tag{display:inline-block;min-width:1.5em;text-align:center;border-radius:4px;background:var(--ink);color:#fff;font-size:13px;padding:0 5px;margin-right:4px}
.runs{display:grid;gap:28px}.runs-2{grid-template-columns:repeat(2,minmax(0,1fr))}
@media (max-width:980px){.runs-2{grid-template-columns:1fr}}
.run{min-width:0}
.headline{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:12px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 10px}
.card dt{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.card dd{margin:0}.card .value{display:block;font-size:24px;font-weight:650}
.card .note,.card .interval,.card .verdict{display:block;font-size:12px}
.card .interval{color:var(--ink)}.verdict{color:var(--warn);font-weight:600}
.card.warn{border-color:var(--warn)}.card.warn .value{color:var(--warn)}
.warn-text{color:var(--warn)}
figure.block{margin:0 0 8px}figcaption{font-size:13px;max-width:640px}
svg.chart{display:block;max-width:100%;height:auto;overflow:visible}
svg .bar{fill:var(--bar)}svg .grid{stroke:var(--line);stroke-width:1}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;fill:var(--ink)}
svg .axis,svg .axis-title,svg .legend{fill:var(--muted)}svg .label{font-size:12px}svg .value{font-weight:600}
svg .expected{stroke:var(--warn);stroke-width:2;stroke-dasharray:4 3}
svg .reference{stroke:var(--warn);stroke-width:2}
svg .diagonal{stroke:var(--muted);stroke-dasharray:5 4}
svg .dot{fill:var(--ink)}svg .count.empty{fill:var(--line)}
.absent{background:var(--card);border:1px dashed var(--line);border-radius:6px;padding:10px;color:var(--muted)}
table{border-collapse:collapse;font-size:14px}th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:right}
th[scope=row],thead th:first-child{text-align:left}caption{white-space:nowrap;text-align:left;color:var(--muted);font-size:13px;padding-bottom:4px}
table.bins{font-size:12px}tr.empty td{color:var(--muted)}
.paired-grid{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.paired-table td{text-align:center;min-width:110px;padding:10px}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}.facts dt{font-weight:600}.facts dd{margin:0}
.verdict.overall{font-size:15px}
details{margin-top:6px;font-size:13px}
footer{margin-top:32px;border-top:1px solid var(--line);padding-top:8px;font-size:13px}
@media print{main{max-width:none}details{display:none}}
`
