/** The two-run part of the HTML report: the headline table with changes, and the paired comparison. */
import { compareResults, type Comparison } from '../core/compare/compare.ts'
import { DataError } from '../core/support/errors.ts'
import type { ReportRun } from './run-files.ts'
import { formatP, signed, signedInt, signedPp } from './html-format.ts'
import { comparisonVerdict, type RunVerdict } from './run-verdict.ts'
import { percent } from './svg.ts'
import { escapeXml } from './escape.ts'

export function headlineComparison(runs: readonly ReportRun[], labels: readonly string[]): string {
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

/** The paired comparison of two runs, or why there is none (an HTML sentence). */
export type Pairing = { comparison: Comparison } | { absent: string }

/** Pair two runs by their records, once per page. */
export function pairRuns(runs: readonly ReportRun[]): Pairing {
  const [ra, rb] = [runs[0]!, runs[1]!]
  if (!ra.records?.length || !rb.records?.length) {
    const missing = [!ra.records?.length ? 'A' : '', !rb.records?.length ? 'B' : ''].filter(Boolean).join(' and ')
    return { absent: `<p class="absent">A paired test needs the records of both runs; ${missing} ${missing.length > 1 ? 'have' : 'has'} none (<code>--records-out</code>).</p>` }
  }
  try {
    return { comparison: compareResults({ records: ra.records, manifest: ra.result.manifest }, { records: rb.records, manifest: rb.result.manifest }, { labels: ['A', 'B'] }) }
  } catch (error) {
    if (!(error instanceof DataError)) throw error
    return { absent: `<p class="absent warn-text">No paired comparison: ${escapeXml(error.message)}</p>` }
  }
}

/** The paired comparison, or a sentence on why there is none. */
export function pairedSection(pairing: Pairing, labels: readonly string[]): string {
  const open = `<section class="paired" aria-labelledby="paired-h"><h2 id="paired-h">Paired comparison</h2>`
  return 'absent' in pairing ? `${open}${pairing.absent}</section>` : `${open}${pairedBody(pairing.comparison, labels)}</section>`
}

export function pairedBody(c: Comparison, labels: readonly string[]): string {
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
  const pos = c.answeredByPosition
  const facts = [
    `<dt>A</dt><dd>${escapeXml(labels[0]!)}</dd>`,
    `<dt>B</dt><dd>${escapeXml(labels[1]!)}</dd>`,
    `<dt>McNemar (exact)</dt><dd data-value="mcnemar"><b>${formatP(m.pTwoSided)}</b> two-sided · ${formatP(m.pMid, 'mid-p')} · ${m.discordant} discordant pair${m.discordant === 1 ? '' : 's'}</dd>`,
    `<dt>accuracy</dt><dd>A ${percent(c.accuracy.a)} · B ${percent(c.accuracy.b)} · Δ ${signedPp(c.accuracy.difference)}</dd>`,
    `<dt>balanced accuracy</dt><dd>A ${percent(ba.a)} · B ${percent(ba.b)} · Δ ${signedPp(ba.difference)} ` +
      `<span class="interval">${Math.round(ba.interval.level * 100)}% paired bootstrap [${signed(ba.interval.lower * 100, 1)}, ${signed(ba.interval.upper * 100, 1)}] pp</span></dd>`,
    oc === null
      ? `<dt>order consistency</dt><dd>n/a: no decision was scored under several orderings on both sides</dd>`
      : `<dt>order consistency</dt><dd>A ${percent(oc.a)} · B ${percent(oc.b)} · Δ ${signedPp(oc.difference)} · exact ${formatP(oc.mcnemar.pTwoSided)} ` +
        `<span class="note">(${oc.table.onlyB} became consistent, ${oc.table.onlyA} stopped, over ${oc.decisions} decisions)</span></dd>`,
    pos === null
      ? ''
      : `<dt>answered by position</dt><dd>A ${percent(pos.a)} · B ${percent(pos.b)} · Δ ${signedPp(pos.difference)} · exact ${formatP(pos.mcnemar.pTwoSided)} ` +
        `<span class="note">(the same letter under every ordering, a different option each time)</span></dd>`,
  ]
  return `<div class="paired-grid">${table}<dl class="facts">${facts.join('')}</dl></div><p class="verdict overall">${escapeXml(comparisonVerdict(c).sentence)}</p>`
}

/** A verdict as the page shows it: a coloured line; `id="verdict"` on the page's own. */
export function verdictElement(verdict: RunVerdict, pageVerdict: boolean): string {
  return `<p${pageVerdict ? ' id="verdict"' : ''} class="verdict-line ${verdict.severity}" data-severity="${verdict.severity}">${escapeXml(verdict.sentence)}</p>`
}
