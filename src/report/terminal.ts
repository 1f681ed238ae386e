/** The terminal report of one run. */
import { NO_DISTRIBUTION, NO_DISTRIBUTION_NOTE, noDistributionCount } from '../core/metrics/no-distribution.ts'
import { formatCacheCounts } from '../core/scorer/cache-counts.ts'
import pc from 'picocolors'
import type { Verdict } from '../core/statistics/compute.ts'
import { eceNote } from '../core/statistics/ece-note.ts'
import { robustnessLines } from './terminal-robustness.ts'
import { escapeControl } from '../core/support/escape.ts'
import type { EvalResult, EvalResultJson } from '../core/result/result.ts'
import { stopEarlyLine, stopEarlyOf } from '../core/thresholds/sequential/verdict.ts'
import { thresholdLabel } from '../core/thresholds/metrics.ts'
import { detectableChange, formatInterval, hasTies, lettersLine, percent, readoutText, tiedDetail } from './format.ts'
import { runVerdict, type VerdictSeverity } from './run-verdict.ts'
import { appendAll } from '../core/support/spreadless.ts'
import { z } from 'zod'
import { refuseUnknownOptions, type SameKeys } from '../core/support/options.ts'

/** Options for {@link render}. */
export interface RenderOptions {
  /** Colour the block with ANSI codes. Default: {@link colorEnabled} for stdout. */
  color?: boolean
  /**
   * Marks to put beside metric lines by threshold key, e.g. `{ balancedAccuracy: '✓ ≥ 0.70',
   * slotSensitivityGap: '✗ ≤ 0.10' }` (the Vitest reporter uses it).
   */
  marks?: Readonly<Record<string, string | undefined>>
}

/** The keys of {@link RenderOptions}, checked where they are given: a misspelled one is refused by name. */
export const RenderOptionsSchema = z.strictObject({ color: z.boolean(), marks: z.record(z.string(), z.string().optional()).readonly() }).partial()
true satisfies SameKeys<z.input<typeof RenderOptionsSchema>, RenderOptions>

/**
 * Whether to colour output for a stream: never under `NO_COLOR`, always under
 * `FORCE_COLOR` (non-zero), else only when the stream is a terminal (so a pipe or
 * a file gets plain text).
 */
export function colorEnabled(stream: { isTTY?: boolean } = process.stdout): boolean {
  const env = process.env
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

const pct = (value: number) => percent(value)
const label = (text: string) => text.padEnd(19)

/**
 * The sceptic report block: model, decisions, debias and orderings, accuracy beside
 * chance, balanced accuracy, order consistency (or why it is n/a), ECE, Brier, the
 * letters picked and balanced accuracy per criterion. Plain text when `color` is off.
 */
export function render(result: EvalResult, options: RenderOptions = {}): string {
  refuseUnknownOptions(RenderOptionsSchema, options, 'render options')
  const c = pc.createColors(options.color ?? colorEnabled())
  const m = result.manifest
  const mark = (key: string) => {
    const text = options.marks && Object.hasOwn(options.marks, key) ? options.marks[key] : undefined
    if (!text) return ''
    return '   ' + (text.startsWith('✗') ? c.red(text) : text.startsWith('⚠') ? c.yellow(text) : c.green(text))
  }
  const skipped = m.unlabelledSkipped > 0 ? c.dim(`   (${m.unlabelledSkipped} unlabelled skipped)`) : ''
  // Statistics (present unless evaluated with statistics: false): `  [lo, hi]` after a
  // value (and its threshold mark), and the verdict when the interval does not clear chance
  // or the majority baseline.
  const st = result.statistics
  const ci = (interval: { lower: number; upper: number; method?: string } | null | undefined) => (interval ? `  ${c.dim(formatInterval(interval))}` : '')
  const verdict = (v: Verdict | null | undefined) => (v?.message ? '   ' + c.yellow(v.message) : '')
  const stop = stopEarlyOf(result)
  // A run that stopped early says so before any number, and that the numbers are from the scored sample.
  const sample = stop?.stopped ? c.yellow(`   (stopped early: ${stop.total - stop.scored} of ${stop.total} not scored; every figure below is from the scored sample)`) : ''
  const stopLine = stopEarlyLine(result, thresholdLabel)
  const lines = [
    verdictLine(result, c),
    `${label('model')}${escapeControl(modelLine(m))}`,
    ...readoutLines(m.readout),
    // A quantized model's agreement with fp32 measured on another CPU kind is not this machine's (docs/onnx-models.md#which-cpu).
    ...(typeof m.quantizationElsewhere === 'string' ? [`${label('8 bits')}${c.yellow(escapeControl(m.quantizationElsewhere))}`] : []),
    `${label('decisions')}${result.n}${sample}${skipped}`,
    ...(stopLine ? [`${label(stop!.stopped ? 'stopped early' : 'stop early')}${stop!.stopped ? c.bold(stopLine) : c.dim(stopLine)}`] : []),
    ...(typeof m.stopEarlyOff === 'string' ? [`${label('stop early')}${c.dim(`off this run: ${escapeControl(m.stopEarlyOff)}`)}`] : []),
    ...failureLines(result, c),
    `${label('debias')}${m.debias}   ${m.orderingsScored} ordering${m.orderingsScored === 1 ? '' : 's'} scored`,
    ...(m.cache ? [`${label('cache')}${formatCacheCounts(m.cache)}`] : []),
    `${label('accuracy')}${pct(result.accuracy)}${mark('accuracy')}${ci(st?.intervals.accuracy)}   ${c.dim(`(chance ${pct(m.chance)})`)}${verdict(st?.verdicts.accuracy)}`,
    `${label('balanced accuracy')}${c.bold(pct(result.balancedAccuracy))}${mark('balancedAccuracy')}${ci(st?.intervals.balancedAccuracy)}${verdict(st?.verdicts.balancedAccuracy)}`,
  ]
  if (result.orderConsistency === null) {
    lines.push(
      `${label('order consistency')}n/a     ${c.dim(`not measured: only one ordering was scored${m.debias === 'none' ? ' (debias none)' : ''}, so nothing here would expose a position prior; use debias cyclic`)}`,
    )
  } else {
    const oc = pct(result.orderConsistency)
    const over = (m.pride as { orderConsistencyOver?: string } | undefined)?.orderConsistencyOver
    lines.push(
      `${label('order consistency')}${c.bold(result.orderConsistency < 0.5 ? c.yellow(oc) : oc)}${mark('orderConsistency')}${ci(st?.intervals.orderConsistency)}   ` +
        `${c.dim(`same answer under every ordering${over ? ` (over ${over})` : ''}`)}${verdict(st?.verdicts.orderConsistency)}`,
    )
  }
  if ((m.epochs ?? 1) > 1 || (m.reducer ?? 'mean') !== 'mean')
    lines.push(`${label('score')}${result.score.toFixed(3)}   ${c.dim(`(${m.reducer} over ${m.epochs} epoch${m.epochs === 1 ? '' : 's'})`)}`)
  if (result.ece !== null) {
    const { note } = eceNote(result)
    lines.push(`${label('ece')}${result.ece.toFixed(3)}${note ? '   ' + c.dim(note) : ''}`)
  }
  if (result.brier !== null) lines.push(`${label('brier')}${result.brier.toFixed(3)}`)
  const oneHot = noDistributionCount(m)
  if (result.ece === null && oneHot > 0)
    for (const name of ['ece', 'brier']) lines.push(`${label(name)}n/a     ${c.dim(`${NO_DISTRIBUTION_NOTE} (${oneHot} decision${oneHot === 1 ? '' : 's'} flagged ${NO_DISTRIBUTION})`)}`)
  if (st) {
    const base = st.majorityBaseline
    lines.push(
      `${label('majority baseline')}${pct(base.accuracy)}${ci(base.interval)}   ${c.dim(`balanced ${pct(base.balancedAccuracy)}; always the most frequent answer per criterion`)}`,
      `${label('detectable change')}${detectableChange(st.minimumDetectableDifference, result.n)}   ` +
        c.dim(`smallest accuracy change a paired comparison on ${result.n} decisions detects (80% power, α = 0.05)`),
    )
    if (st.rstd !== null) lines.push(`${label('rstd')}${st.rstd.toFixed(1)}   ${c.dim(RSTD_NOTES[st.rstdReading ?? 'ok'])}`)
  }
  appendAll(lines, robustnessLines(result, c, (key) => mark(key).replace(/^ {3}/, ' ')))
  lines.push(`${label('letters picked')}${lettersLine(result.letterDistribution)}`)
  for (const [name, value] of Object.entries(result.metrics ?? {})) lines.push(`${label(escapeControl(name))}${formatMetric(value)}`)
  const criteria = Object.keys(result.perCriterion).sort()
  if (criteria.length > 0) {
    lines.push('', 'per criterion (balanced accuracy):')
    for (const key of criteria) lines.push(`  ${escapeControl(key).padEnd(20)} ${result.perCriterion[key]!.toFixed(3)}`)
  }
  return lines.join('\n')
}

/** The report's first line: the run's verdict, coloured by its severity. */
export function verdictLine(result: EvalResultJson, c: ReturnType<typeof pc.createColors>): string {
  const { severity, sentence } = runVerdict(result)
  return `${label('verdict')}${paint(severity, c)(c.bold(escapeControl(sentence)))}`
}

/** The colour of a verdict's severity. */
export function paint(severity: VerdictSeverity, c: ReturnType<typeof pc.createColors>): (text: string) => string {
  return severity === 'fail' ? c.red : severity === 'warn' ? c.yellow : severity === 'pass' ? c.green : c.dim
}

/** What the RStd line says beside the number, by what RStd can say on this set. */
const RSTD_NOTES = {
  ok: 'std of recall across gold letters, in points (PriDe); 0 = no letter favoured',
  'one-letter': 'every gold answer sits on one letter, so there is no spread to measure: says nothing about letter bias',
  'all-wrong': 'every recall is 0 (nothing answered right), so 0 here says nothing about letter bias',
} as const

/** `failed`, `flagged` and `tied` lines: how many decisions did not count, and why. Nothing when none. */
function failureLines(result: EvalResult, c: ReturnType<typeof pc.createColors>): string[] {
  const m = result.manifest
  const lines: string[] = []
  const summary = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([reason, count]) => `${escapeControl(reason)} ${count}`)
      .join(', ')
  if ((result.failed ?? 0) > 0)
  {
    lines.push(`${label('failed')}${c.red(String(result.failed))}   (${summary(m.failedByReason ?? {})}; metrics are over the ${result.n} scored)`)
    // The counts say how many; the first failure's own message says why (a throw names the call's requests).
    const first = result.failures?.[0]
    if (first) lines.push(`  ${c.dim(`first: decision ${JSON.stringify(escapeControl(first.id))}: ${escapeControl(first.message)}`)}`)
  }
  const flagged = Object.values(m.flagged ?? {}).reduce((a, b) => a + b, 0)
  if (flagged > 0) lines.push(`${label('flagged')}${c.yellow(String(flagged))}   (${summary(m.flagged)})`)
  if (hasTies(m.tied)) lines.push(`${label('tied')}${c.yellow(String(m.tied.decisions))}   ${c.dim(tiedDetail(m.tied))}`)
  return lines
}

/** The ONNX readout line: letter head or full logits, and why (none for other scorers). */
function readoutLines(readout: unknown): string[] {
  const text = readoutText(readout)
  return text === undefined ? [] : [`${label('readout')}${escapeControl(text)}`]
}

/** A custom metric: three decimals, or a percentage-free integer when it is one. */
function formatMetric(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3)
}

/**
 * What the model line shows: the scorer's own description when it names the model
 * (an ONNX scorer says how it ran: pool shape, optimized readout), else the model,
 * else the scorer.
 */
function modelLine(m: EvalResult['manifest']): string {
  if (typeof m.model === 'string' && !m.scorer.includes(m.model)) return m.model
  return m.scorer
}
