/**
 * The HTML page's order-robustness block: accuracy by gold slot (dashed: a position-blind
 * reader's flat line), then the panel's other numbers with their chance references.
 * A result written before the panel existed gets no block.
 */
import type { EvalResultJson } from '../core/result/result.ts'
import { formatP } from './format.ts'
import { columnChart, niceMax, percent } from './svg.ts'
import { escapeXml } from './escape.ts'

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

/** The block, or `''` when the run has no panel (one ordering, or an older JSON file). */
export function robustnessBlock(r: EvalResultJson, id: string): string {
  const bySlot = r.accuracyByGoldSlot
  if (!isNumber(r.circularAccuracy) || !bySlot || typeof bySlot !== 'object') return ''
  const reference = isNumber(r.orderingAccuracy) ? r.orderingAccuracy : undefined
  const columns = Object.entries(bySlot)
    .filter((entry): entry is [string, number] => isNumber(entry[1]))
    .map(([letter, value]) => ({ label: letter, value, ...(reference !== undefined ? { expected: reference } : {}) }))
  const chart = columnChart(columns, {
    title: 'Accuracy by gold slot',
    desc: `Accuracy over the orderings that showed the gold answer at each letter: ${columns.map((c) => `${c.label} ${percent(c.value, 0)}`).join(', ')}.`,
    max: niceMax([...columns.map((c) => c.value), reference ?? 0]),
    expectedLabel: 'a position-blind reader (the mean over orderings)',
    idPrefix: `${id}-goldslot`,
  })
  const rows: [string, string, string][] = []
  const chance = r.manifest.circularChance
  rows.push(['circular accuracy', percent(r.circularAccuracy), `right under every ordering; a uniform guesser ${isNumber(chance) ? percent(chance) : 'n/a'}`])
  if (isNumber(r.orderingAccuracy)) rows.push(['ordering accuracy', percent(r.orderingAccuracy), 'mean correctness over (decision, ordering)'])
  if (isNumber(r.slotSensitivityGap)) rows.push(['slot sensitivity gap', percent(r.slotSensitivityGap), 'max − min of the chart; a position-blind reader 0'])
  const bias = r.slotBias
  if (bias && isNumber(bias.chiSquare) && isNumber(bias.p) && isNumber(bias.cramersV))
    rows.push([
      'slot bias',
      `χ² ${bias.chiSquare.toFixed(1)}, df ${bias.df}, ${formatP(bias.p)}`,
      `Cramér's V ${bias.cramersV.toFixed(2)}${Array.isArray(bias.cramersVInterval) ? ` [${bias.cramersVInterval.map((v) => (isNumber(v) ? v.toFixed(2) : '?')).join(', ')}]` : ''}; at accuracy outside 60–95% a non-significant test is weak evidence`,
    ])
  if (isNumber(r.ckld)) rows.push(['CKLD', r.ckld.toFixed(3), 'KL(gold letters ‖ picked letters); 0 when picks follow gold'])
  const pairs = r.pairwise
  if (pairs && isNumber(pairs.positionConsistency) && isNumber(pairs.preferenceFairness)) {
    rows.push(['position consistency', percent(pairs.positionConsistency), `${pairs.pairs} pairs judged in both orders: primacy ${pairs.primacy}, recency ${pairs.recency}`])
    rows.push([
      'preference fairness',
      pairs.preferenceFairness.toFixed(2),
      `(recency − primacy) / pairs; fair 0, negative favours the first shown${isNumber(pairs.firstShownRate) ? `; first shown picked ${percent(pairs.firstShownRate)}` : ''}`,
    ])
    if (isNumber(pairs.repetitionStability)) rows.push(['repetition stability', percent(pairs.repetitionStability), 'same pick in every epoch'])
  }
  const table = rows.map(([name, value, note]) => `<tr><th scope="row">${escapeXml(name)}</th><td>${escapeXml(value)}</td><td>${escapeXml(note)}</td></tr>`).join('')
  return (
    `<figure class="block" data-block="robustness"><h3>Order robustness</h3>${chart}` +
    `<figcaption>Every number from the same picks, no extra model calls. Bars: accuracy when the gold answer was shown at that letter; dashed marks: the same accuracy at every letter, what a reader that ignores position shows.</figcaption>` +
    `<table class="bins"><tbody>${table}</tbody></table></figure>`
  )
}
