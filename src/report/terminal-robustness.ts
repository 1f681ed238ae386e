/**
 * The terminal report's order-robustness block: one compact group of lines, each number
 * beside its chance reference (a uniform guesser's circular accuracy, a position-blind
 * reader's gap and fairness of 0). Pure: a result in, lines out.
 */
import type pc from 'picocolors'
import type { EvalResultJson } from '../core/result/result.ts'
import { formatP, percent, points } from './format.ts'

type Colors = ReturnType<typeof pc.createColors>

/** Accuracy band outside which a non-significant slot-bias test is weak evidence ("Position Bias is Hidden Behind Ceiling Effects", 2026). */
export const SLOT_TEST_INFORMATIVE_BAND: readonly [number, number] = [0.6, 0.95]

const pct = (value: number) => percent(value)
const label = (text: string) => `  ${text.padEnd(17)}`

/**
 * The block's lines (none when no decision was scored under more than one ordering).
 * `mark(key)` returns the threshold mark to put after a value, or `''`.
 */
export function robustnessLines(result: EvalResultJson, c: Colors, mark: (key: string) => string = () => ''): string[] {
  if (result.circularAccuracy === null || result.circularAccuracy === undefined) return []
  const lines = [`${'order robustness'.padEnd(19)}${c.dim('every number from the same picks, no extra model calls')}`]
  const chance = result.manifest.circularChance
  lines.push(
    `${label('circular')}${pct(result.circularAccuracy)}${mark('circularAccuracy')}   ` +
      c.dim(`right under every ordering${typeof chance === 'number' ? `; a uniform guesser ${pct(chance)}` : ''}`),
  )
  if (result.orderingAccuracy !== null) lines.push(`${label('per ordering')}${pct(result.orderingAccuracy)}${mark('orderingAccuracy')}   ${c.dim('mean over (decision, ordering)')}`)
  if (result.accuracyByGoldSlot) {
    const slots = Object.entries(result.accuracyByGoldSlot)
      .filter((entry): entry is [string, number] => entry[1] !== null)
      .map(([letter, value]) => `${letter}:${percent(value, 0)}`)
      .join('  ')
    lines.push(`${label('gold at slot')}${slots}`)
  }
  if (result.slotSensitivityGap !== null) {
    const gap = points(result.slotSensitivityGap)
    lines.push(`${label('slot gap')}${result.slotSensitivityGap > 0.1 ? c.yellow(gap) : gap}${mark('slotSensitivityGap')}   ${c.dim('max − min of the above; a position-blind reader 0')}`)
  }
  const bias = result.slotBias
  if (bias) {
    const interval = bias.cramersVInterval ? ` ${c.dim(`[${bias.cramersVInterval.map((v) => v.toFixed(2)).join(', ')}]`)}` : ''
    const weak =
      bias.p >= 0.05 && result.orderingAccuracy !== null && (result.orderingAccuracy < SLOT_TEST_INFORMATIVE_BAND[0] || result.orderingAccuracy > SLOT_TEST_INFORMATIVE_BAND[1])
    lines.push(
      `${label('slot bias')}χ² ${bias.chiSquare.toFixed(1)}, df ${bias.df}, ${formatP(bias.p)}, V ${bias.cramersV.toFixed(2)}${mark('cramersV')}${interval}` +
        (weak ? '   ' + c.yellow(`accuracy outside 60–95%: a non-significant test is weak evidence`) : ''),
    )
  }
  if (result.ckld !== null) lines.push(`${label('ckld')}${result.ckld.toFixed(3)}${mark('ckld')}   ${c.dim('KL(gold letters ‖ picked letters); 0 = picks follow gold')}`)
  const pairs = result.pairwise
  if (pairs) {
    const fairness = pairs.preferenceFairness
    lines.push(
      `${label('pairs')}${pairs.pairs} judged in both orders: consistent ${pct(pairs.positionConsistency)}${mark('positionConsistency')}, primacy ${pairs.primacy}, recency ${pairs.recency}`,
      `${label('fairness')}${fairness >= 0 ? '+' : ''}${fairness.toFixed(2)}${mark('preferenceFairness')}   ` +
        c.dim(
          `(recency − primacy)/pairs; fair 0, negative favours the first shown` +
            (pairs.firstShownRate !== null ? `; first shown picked ${pct(pairs.firstShownRate)}` : '') +
            (pairs.repetitionStability !== undefined ? `; same pick every epoch ${pct(pairs.repetitionStability)}` : ''),
        ),
    )
  }
  return lines
}
