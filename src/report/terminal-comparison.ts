/**
 * The terminal form of a paired comparison ({@link compareResults}): the 2×2 table, the
 * exact McNemar p, the accuracy changes with their intervals and a one-line verdict.
 * Pure: a comparison in, text out. The numbers are computed in compare.ts.
 */
import pc from 'picocolors'
import type { Comparison } from '../core/compare/compare.ts'
import { escapeControl } from '../core/support/escape.ts'
import { detectableChange, formatP, percent, signedPoints, signedPointsInterval } from './format.ts'
import { comparisonVerdict } from './run-verdict.ts'
import { colorEnabled, paint } from './terminal.ts'
import { z } from 'zod'
import { refuseUnknownOptions, type SameKeys } from '../core/support/options.ts'

/** Options for {@link renderComparison}. */
export interface RenderComparisonOptions {
  /** ANSI colour. Default: `colorEnabled()` for stdout (honours NO_COLOR). */
  color?: boolean
}

/** The keys of {@link RenderComparisonOptions}, checked where they are given: a misspelled one is refused by name. */
export const RenderComparisonOptionsSchema = z.strictObject({ color: z.boolean() }).partial()
true satisfies SameKeys<z.input<typeof RenderComparisonOptionsSchema>, RenderComparisonOptions>

const pct = (value: number) => percent(value)
const pp = (value: number) => signedPoints(value)
const label = (text: string) => text.padEnd(19)

/**
 * The comparison as a text block: its verdict (every significant paired change), the paired table, the exact McNemar p (two-sided and
 * mid-p), accuracy and balanced accuracy with the paired bootstrap interval of the
 * change, order consistency with its exact test, and a one-line verdict beside the
 * minimum detectable difference.
 */
export function renderComparison(comparison: Comparison, options: RenderComparisonOptions = {}): string {
  refuseUnknownOptions(RenderComparisonOptionsSchema, options, 'renderComparison options')
  const c = pc.createColors(options.color ?? colorEnabled())
  const [A, B] = [escapeControl(comparison.labels.a), escapeControl(comparison.labels.b)]
  const t = comparison.table
  const m = comparison.mcnemar
  const width = B.length + ' wrong'.length + 3
  const rowWidth = Math.max(19, A.length + ' wrong'.length + 2)
  const cell = (value: number | string) => String(value).padStart(width)
  const headline = comparisonVerdict(comparison)
  const lines = [
    `${label('verdict')}${paint(headline.severity, c)(c.bold(escapeControl(headline.sentence)))}`,
    `${label('compare')}${A}  vs  ${B}`,
    `${label('decisions')}${comparison.n} paired   ${c.dim(`(records fingerprint ${comparison.fingerprint.records})`)}`,
    '',
    `${' '.repeat(rowWidth)}${cell(`${B} right`)}${cell(`${B} wrong`)}`,
    `${`${A} right`.padEnd(rowWidth)}${cell(t.bothRight)}${cell(t.onlyA)}`,
    `${`${A} wrong`.padEnd(rowWidth)}${cell(t.onlyB)}${cell(t.neither)}`,
    '',
    `${label('both right')}${t.bothRight}   only ${A} ${t.onlyA}   only ${B} ${t.onlyB}   neither ${t.neither}`,
    `${label('McNemar (exact)')}${formatP(m.pTwoSided)} two-sided   ${formatP(m.pMid, 'mid-p')}   ` +
      c.dim(`(${m.discordant} discordant pair${m.discordant === 1 ? '' : 's'})`),
    `${label('accuracy')}${A} ${pct(comparison.accuracy.a)}   ${B} ${pct(comparison.accuracy.b)}   Δ ${pp(comparison.accuracy.difference)}`,
    `${label('balanced accuracy')}${A} ${pct(comparison.balancedAccuracy.a)}   ${B} ${pct(comparison.balancedAccuracy.b)}   ` +
      `Δ ${pp(comparison.balancedAccuracy.difference)}  ${signedPointsInterval(comparison.balancedAccuracy.interval)}  ` +
      c.dim(`(paired bootstrap, ${comparison.balancedAccuracy.interval.resamples} resamples of ${comparison.balancedAccuracy.interval.unit}, seed ${comparison.settings.seed})`),
  ]
  const oc = comparison.orderConsistency
  if (oc === null) {
    lines.push(`${label('order consistency')}n/a   ${c.dim('no decision was scored under several orderings on both sides')}`)
  } else {
    lines.push(
      `${label('order consistency')}${A} ${pct(oc.a)}   ${B} ${pct(oc.b)}   Δ ${pp(oc.difference)}   ` +
        `exact ${formatP(oc.mcnemar.pTwoSided)}   ` +
        c.dim(`(${oc.table.onlyB} became consistent, ${oc.table.onlyA} stopped; over ${oc.decisions} decisions)`),
    )
  }
  const pos = comparison.answeredByPosition
  if (pos)
    lines.push(
      `${label('by position')}${A} ${pct(pos.a)}   ${B} ${pct(pos.b)}   Δ ${pp(pos.difference)}   exact ${formatP(pos.mcnemar.pTwoSided)}   ` +
        c.dim('(same letter under every ordering, a different option each time)'),
    )
  const mdd = comparison.minimumDetectableDifference
  lines.push(
    `${label('detectable change')}${detectableChange(mdd, comparison.n)}   ` +
      c.dim(`smallest accuracy change ${comparison.n} paired decisions detect (80% power, α = 0.05)`),
  )
  return lines.join('\n')
}
