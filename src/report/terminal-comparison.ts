/**
 * The terminal form of a paired comparison ({@link compareResults}): the 2×2 table, the
 * exact McNemar p, the accuracy changes with their intervals and a one-line verdict.
 * Pure: a comparison in, text out. The numbers are computed in compare.ts.
 */
import pc from 'picocolors'
import type { Comparison } from '../core/compare.ts'
import { escapeControl } from '../core/escape.ts'
import { colorEnabled } from './terminal.ts'

/** Options for {@link renderComparison}. */
export interface RenderComparisonOptions {
  /** ANSI colour. Default: `colorEnabled()` for stdout (honours NO_COLOR). */
  color?: boolean
}

const pct = (value: number) => `${(value * 100).toFixed(1)}%`
const pp = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)} pp`
const pValue = (p: number) => (p >= 0.001 ? p.toFixed(4).replace(/0+$/, '').replace(/\.$/, '.0') : p.toExponential(2))
const label = (text: string) => text.padEnd(19)
const signed = (value: number) => `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value * 100).toFixed(1)}`
/** `[−5.0, +22.1] pp`: a difference's interval in percentage points. */
const signedInterval = (interval: { lower: number; upper: number }) => `[${signed(interval.lower)}, ${signed(interval.upper)}] pp`

/**
 * The comparison as a text block: the paired table, the exact McNemar p (two-sided and
 * mid-p), accuracy and balanced accuracy with the paired bootstrap interval of the
 * change, order consistency with its exact test, and a one-line verdict beside the
 * minimum detectable difference.
 */
export function renderComparison(comparison: Comparison, options: RenderComparisonOptions = {}): string {
  const c = pc.createColors(options.color ?? colorEnabled())
  const [A, B] = [escapeControl(comparison.labels.a), escapeControl(comparison.labels.b)]
  const t = comparison.table
  const m = comparison.mcnemar
  const width = B.length + ' wrong'.length + 3
  const rowWidth = Math.max(19, A.length + ' wrong'.length + 2)
  const cell = (value: number | string) => String(value).padStart(width)
  const lines = [
    `${label('compare')}${A}  vs  ${B}`,
    `${label('decisions')}${comparison.n} paired   ${c.dim(`(records fingerprint ${comparison.fingerprint.records})`)}`,
    '',
    `${' '.repeat(rowWidth)}${cell(`${B} right`)}${cell(`${B} wrong`)}`,
    `${`${A} right`.padEnd(rowWidth)}${cell(t.bothRight)}${cell(t.onlyA)}`,
    `${`${A} wrong`.padEnd(rowWidth)}${cell(t.onlyB)}${cell(t.neither)}`,
    '',
    `${label('both right')}${t.bothRight}   only ${A} ${t.onlyA}   only ${B} ${t.onlyB}   neither ${t.neither}`,
    `${label('McNemar (exact)')}p = ${pValue(m.pTwoSided)} two-sided   mid-p = ${pValue(m.pMid)}   ` +
      c.dim(`(${m.discordant} discordant pair${m.discordant === 1 ? '' : 's'})`),
    `${label('accuracy')}${A} ${pct(comparison.accuracy.a)}   ${B} ${pct(comparison.accuracy.b)}   Δ ${pp(comparison.accuracy.difference)}`,
    `${label('balanced accuracy')}${A} ${pct(comparison.balancedAccuracy.a)}   ${B} ${pct(comparison.balancedAccuracy.b)}   ` +
      `Δ ${pp(comparison.balancedAccuracy.difference)}  ${signedInterval(comparison.balancedAccuracy.interval)}  ` +
      c.dim(`(paired bootstrap, ${comparison.balancedAccuracy.interval.resamples} resamples of ${comparison.balancedAccuracy.interval.unit}, seed ${comparison.settings.seed})`),
  ]
  const oc = comparison.orderConsistency
  if (oc === null) {
    lines.push(`${label('order consistency')}n/a   ${c.dim('no decision was scored under several orderings on both sides')}`)
  } else {
    lines.push(
      `${label('order consistency')}${A} ${pct(oc.a)}   ${B} ${pct(oc.b)}   Δ ${pp(oc.difference)}   ` +
        `exact p = ${pValue(oc.mcnemar.pTwoSided)}   ` +
        c.dim(`(${oc.table.onlyB} became consistent, ${oc.table.onlyA} stopped; over ${oc.decisions} decisions)`),
    )
  }
  const mdd = comparison.minimumDetectableDifference
  const significant = m.pTwoSided < 0.05
  const baExcludesZero = comparison.balancedAccuracy.interval.lower > 0 || comparison.balancedAccuracy.interval.upper < 0
  let verdict: string
  if (m.discordant === 0 && comparison.balancedAccuracy.difference === 0)
    verdict = 'no difference: every decision was answered equally right or wrong by both'
  else if (significant)
    verdict = `${comparison.accuracy.difference > 0 ? B : A} gets more decisions right (exact McNemar p = ${pValue(m.pTwoSided)})`
  else
    verdict = `no significant difference in hits (p = ${pValue(m.pTwoSided)}); at ${comparison.n} decisions only changes of about ${pp(mdd).slice(1)} or more are reliably detectable`
  if (!significant && baExcludesZero) verdict += '; the balanced-accuracy interval excludes 0, but the exact test on hits does not agree'
  lines.push('', `${label('verdict')}${significant ? c.bold(verdict) : verdict}`)
  return lines.join('\n')
}
