/**
 * Inline-SVG charts for the HTML report: each one `<svg>` with a `<title>` and `<desc>` for
 * screen readers and its numbers written as text, with no script or font, so it renders the same offline and printed.
 */

import { largest } from '../core/support/spreadless.ts'
import type { ReliabilityBin } from '../core/metrics/headline.ts'
import { escapeXml } from './escape.ts'
import { percent } from './format.ts'

export { percent }

/** SVG coordinates are written with at most two decimals: shorter files, same picture. */
const fmt = (value: number) => String(Math.round(value * 100) / 100)

function open(kind: string, width: number, height: number, title: string, desc: string, prefix: string): string {
  // Ids come from the caller's prefix (not a counter), so the same input gives the same HTML.
  const ids = { title: `${prefix}-title`, desc: `${prefix}-desc` }
  return (
    `<svg class="chart" data-chart="${escapeXml(kind)}" role="img" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" aria-labelledby="${ids.title} ${ids.desc}">` +
    `<title id="${ids.title}">${escapeXml(title)}</title><desc id="${ids.desc}">${escapeXml(desc)}</desc>`
  )
}

/** One bar of {@link columnChart}. */
export interface Column {
  /** Category label under the bar (a letter). */
  label: string
  /** Bar height as a share in [0, 1]. */
  value: number
  /** Where a reference line crosses this column (e.g. the share a position-blind reader gets), or `undefined` for none. */
  expected?: number | undefined
}

/** Options for {@link columnChart}. */
export interface ColumnChartOptions {
  /** Accessible title. */
  title: string
  /** Accessible description: the numbers in words. */
  desc: string
  /** Top of the value axis (default: the largest value or reference, rounded up to a tenth). */
  max?: number
  /** Legend text of the reference marks. */
  expectedLabel?: string
  /** Id prefix for `aria-labelledby`, unique within the page. */
  idPrefix: string
}

/**
 * A rounded-up axis top: the next tenth above the largest value up to 0.5, the next
 * fifth above that (so the gridlines of {@link axisStep} land on round percentages).
 * At least 0.1, at most 1.
 */
export function niceMax(values: readonly number[]): number {
  const top = Math.max(0, largest(values.filter(Number.isFinite)))
  const tenths = Math.ceil(top * 10 - 1e-9)
  const rounded = tenths <= 5 ? tenths / 10 : Math.ceil(tenths / 2) / 5
  return Math.min(1, Math.max(0.1, rounded))
}

/** Gridline spacing for an axis top from {@link niceMax}: 10% up to 50%, then 20%. */
export function axisStep(max: number): number {
  return max <= 0.5 + 1e-9 ? 0.1 : 0.2
}

/**
 * Vertical bars of shares with a value label above each and, per column, an optional
 * dashed reference mark (the letter histogram's "what a reader would show" line).
 */
export function columnChart(columns: readonly Column[], options: ColumnChartOptions): string {
  const left = 44
  const right = 12
  const top = 24
  const bottom = 46
  const slot = Math.max(26, Math.min(64, 420 / Math.max(1, columns.length)))
  const plotW = slot * columns.length
  const plotH = 180
  const width = left + plotW + right
  const height = top + plotH + bottom
  const max = options.max ?? niceMax(columns.flatMap((c) => [c.value, c.expected ?? 0]))
  const y = (v: number) => top + plotH - (Math.min(v, max) / max) * plotH
  const parts = [open('columns', width, height, options.title, options.desc, options.idPrefix)]
  parts.push(axisY(left, top, plotW, plotH, max))
  columns.forEach((col, i) => {
    const x = left + i * slot
    const barW = slot * 0.62
    const bx = x + (slot - barW) / 2
    const by = y(col.value)
    const h = Math.max(0, top + plotH - by)
    parts.push(
      `<g class="column" data-label="${escapeXml(col.label)}" data-value="${col.value}">` +
        `<rect class="bar" x="${fmt(bx)}" y="${fmt(by)}" width="${fmt(barW)}" height="${fmt(h)}"><title>${escapeXml(`${col.label}: ${percent(col.value)}`)}</title></rect>` +
        `<text class="value" x="${fmt(x + slot / 2)}" y="${fmt(by - 5)}" text-anchor="middle">${escapeXml(percent(col.value, 0))}</text>` +
        `<text class="label" x="${fmt(x + slot / 2)}" y="${fmt(top + plotH + 16)}" text-anchor="middle">${escapeXml(col.label)}</text>`,
    )
    if (col.expected !== undefined) {
      const ey = y(col.expected)
      parts.push(
        `<line class="expected" x1="${fmt(x + 2)}" x2="${fmt(x + slot - 2)}" y1="${fmt(ey)}" y2="${fmt(ey)}"><title>${escapeXml(`expected ${percent(col.expected)}`)}</title></line>`,
      )
    }
    parts.push('</g>')
  })
  if (options.expectedLabel && columns.some((c) => c.expected !== undefined)) {
    const ly = top + plotH + 36
    parts.push(
      `<line class="expected" x1="${left}" x2="${left + 22}" y1="${ly - 4}" y2="${ly - 4}"/>` +
        `<text class="legend" x="${left + 28}" y="${ly}">${escapeXml(options.expectedLabel)}</text>`,
    )
  }
  parts.push('</svg>')
  return parts.join('')
}

/** One row of {@link barRows}. */
export interface BarRow {
  /** Row label (a criterion key: user data, escaped here). */
  label: string
  /** Bar length as a value in [0, 1]. */
  value: number
  /** A reference tick on this row (e.g. chance), or `undefined` for none. */
  reference?: number | undefined
}

/** Options for {@link barRows}. */
export interface BarRowsOptions {
  /** Accessible title. */
  title: string
  /** Accessible description. */
  desc: string
  /** Legend text of the reference ticks. */
  referenceLabel?: string
  /** How a value is written beside its bar. Default: three decimals. */
  format?: (value: number) => string
  /** Id prefix for `aria-labelledby`, unique within the page. */
  idPrefix: string
}

/** Horizontal bars on a 0–1 scale, one row each, value written at the bar's end, optional reference tick per row. */
export function barRows(rows: readonly BarRow[], options: BarRowsOptions): string {
  const labelW = 150
  const plotW = 260
  const valueW = 56
  const rowH = 26
  const top = 10
  const legendH = options.referenceLabel && rows.some((r) => r.reference !== undefined) ? 26 : 0
  const axisH = 20
  const width = labelW + plotW + valueW
  const height = top + rows.length * rowH + axisH + legendH
  const format = options.format ?? ((v: number) => v.toFixed(3))
  const x = (v: number) => labelW + Math.max(0, Math.min(1, v)) * plotW
  const parts = [open('rows', width, height, options.title, options.desc, options.idPrefix)]
  const plotBottom = top + rows.length * rowH
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line class="grid" x1="${fmt(x(tick))}" x2="${fmt(x(tick))}" y1="${top}" y2="${plotBottom}"/>` +
        `<text class="axis" x="${fmt(x(tick))}" y="${plotBottom + 14}" text-anchor="middle">${tick}</text>`,
    )
  }
  rows.forEach((row, i) => {
    const y = top + i * rowH
    // Long keys are cut for the picture only; the full key stays in the row's title and in the table.
    const shown = row.label.length > 22 ? row.label.slice(0, 21) + '…' : row.label
    parts.push(
      `<g class="row" data-label="${escapeXml(row.label)}" data-value="${row.value}">` +
        `<title>${escapeXml(`${row.label}: ${format(row.value)}`)}</title>` +
        `<text class="label" x="${labelW - 8}" y="${fmt(y + rowH / 2 + 4)}" text-anchor="end">${escapeXml(shown)}</text>` +
        `<rect class="bar" x="${labelW}" y="${fmt(y + 4)}" width="${fmt(Math.max(0, x(row.value) - labelW))}" height="${rowH - 8}"/>` +
        `<text class="value" x="${fmt(x(row.value) + 5)}" y="${fmt(y + rowH / 2 + 4)}">${escapeXml(format(row.value))}</text>`,
    )
    if (row.reference !== undefined)
      parts.push(`<line class="reference" x1="${fmt(x(row.reference))}" x2="${fmt(x(row.reference))}" y1="${fmt(y + 1)}" y2="${fmt(y + rowH - 1)}"/>`)
    parts.push('</g>')
  })
  if (legendH > 0) {
    const ly = plotBottom + axisH + 14
    parts.push(
      `<line class="reference" x1="${labelW}" x2="${labelW}" y1="${ly - 10}" y2="${ly + 2}"/>` +
        `<text class="legend" x="${labelW + 6}" y="${ly}">${escapeXml(options.referenceLabel!)}</text>`,
    )
  }
  parts.push('</svg>')
  return parts.join('')
}

/** One confidence bin of {@link reliabilityChart}. */
export type ReliabilityBinView = Omit<ReliabilityBin, 'hits'>

/** Options for {@link reliabilityChart}. */
export interface ReliabilityChartOptions {
  /** Accessible title. */
  title: string
  /** Accessible description. */
  desc: string
  /** Id prefix for `aria-labelledby`, unique within the page. */
  idPrefix: string
}

/**
 * Reliability diagram: per confidence bin, a bar up to the bin's accuracy, a dot at
 * (mean confidence, accuracy), the count above, and the diagonal a calibrated model
 * would sit on. Empty bins draw no bar and show a count of 0.
 */
export function reliabilityChart(bins: readonly ReliabilityBinView[], options: ReliabilityChartOptions): string {
  const left = 44
  const top = 22
  const size = 240
  const bottom = 40
  const right = 12
  const width = left + size + right
  const height = top + size + bottom
  const x = (v: number) => left + v * size
  const y = (v: number) => top + size - v * size
  const parts = [open('reliability', width, height, options.title, options.desc, options.idPrefix)]
  parts.push(axisY(left, top, size, size, 1))
  for (const tick of [0, 0.5, 1])
    parts.push(`<text class="axis" x="${fmt(x(tick))}" y="${top + size + 14}" text-anchor="middle">${tick}</text>`)
  parts.push(
    `<text class="axis-title" x="${fmt(x(0.5))}" y="${top + size + 32}" text-anchor="middle">confidence (max probability)</text>`,
    `<line class="diagonal" x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}"/>`,
  )
  bins.forEach((bin, i) => {
    const bx = x(bin.lower) + 2
    const bw = Math.max(1, x(bin.upper) - x(bin.lower) - 4)
    const label = bin.count === 0 ? '0' : String(bin.count)
    parts.push(`<g class="bin" data-bin="${i}" data-count="${bin.count}">`)
    if (bin.accuracy !== null && bin.confidence !== null) {
      parts.push(
        `<title>${escapeXml(`confidence ${bin.lower.toFixed(1)}–${bin.upper.toFixed(1)}: ${bin.count} decisions, accuracy ${percent(bin.accuracy)}, mean confidence ${percent(bin.confidence)}`)}</title>` +
          `<rect class="bar" x="${fmt(bx)}" y="${fmt(y(bin.accuracy))}" width="${fmt(bw)}" height="${fmt(Math.max(0, y(0) - y(bin.accuracy)))}"/>` +
          `<circle class="dot" cx="${fmt(x(bin.confidence))}" cy="${fmt(y(bin.accuracy))}" r="3"/>`,
      )
    }
    const labelY = bin.accuracy === null ? y(0) - 4 : Math.max(top - 4, y(bin.accuracy) - 5)
    parts.push(
      `<text class="count${bin.count === 0 ? ' empty' : ''}" x="${fmt(bx + bw / 2)}" y="${fmt(labelY)}" text-anchor="middle">${label}</text></g>`,
    )
  })
  parts.push('</svg>')
  return parts.join('')
}

/** Left value axis with gridlines every {@link axisStep} up to `max`, labelled in percent. */
function axisY(left: number, top: number, plotW: number, plotH: number, max: number): string {
  const parts: string[] = []
  const step = axisStep(max)
  const ticks = Math.round(max / step)
  for (let i = 0; i <= ticks; i++) {
    const v = Math.min(max, i * step)
    const y = top + plotH - (v / max) * plotH
    parts.push(
      `<line class="grid" x1="${left}" x2="${fmt(left + plotW)}" y1="${fmt(y)}" y2="${fmt(y)}"/>` +
        `<text class="axis" x="${left - 6}" y="${fmt(y + 4)}" text-anchor="end">${escapeXml(percent(v, 0))}</text>`,
    )
  }
  return parts.join('')
}
