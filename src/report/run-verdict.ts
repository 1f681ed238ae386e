/**
 * What a run (or a paired comparison) means, in the sentence every human-facing output opens
 * with; the thresholds are {@link VERDICT_RULE}, explained in docs/reading-the-report.md.
 */
import type { Comparison } from '../core/compare/compare.ts'
import type { EvalResultJson } from '../core/result/result.ts'
import { formatP, percent, points, signedPoints, signedPointsInterval, tooSmallToDetect, topLetter } from './format.ts'

/** How a verdict is coloured: red, amber, green, grey. */
export type VerdictSeverity = 'fail' | 'warn' | 'pass' | 'unknown'

/** A one-sentence verdict and how loudly to show it. */
export interface RunVerdict {
  severity: VerdictSeverity
  sentence: string
}

/** The rule's thresholds, each a documented constant. */
export const VERDICT_RULE = {
  /**
   * Fewer decisions than this and the letter and order shares alone never call a run positional
   * (they are shares, not tests), and a result without statistics gets no verdict. Balanced accuracy
   * with its statistics needs no such floor: its exact test against a guesser and its interval say
   * "too few decisions to tell" whenever the data cannot decide (`decidable`: not even every
   * decision right would clear them), so one more right answer never turns a verdict worse.
   */
  minDecisions: 10,
  /** Order consistency at or above this reads as answering by content. */
  readsOrderConsistency: 0.9,
  /** Significance level for the slot-bias test and every paired change. */
  alpha: 0.05,
  /** A first-shown rate this far from 50% is a position preference (pairs). */
  firstShownMargin: 0.2,
  /** One letter with this share of all picks is a position preference. */
  topLetterShare: 0.9,
  /** Balanced accuracy within this of chance (or the majority baseline) reads as guessing, not as too few decisions. */
  chanceMargin: 0.1,
} as const

const whole = (value: number) => percent(value, 0)

/** The verdict on one run. Tolerant of result files written before a field existed. */
export function runVerdict(result: EvalResultJson): RunVerdict {
  const rule = VERDICT_RULE
  const n = result.n
  const clears = result.statistics?.verdicts?.balancedAccuracy
  // Without the statistics (switched off, or a file from before them) there is no test to ask: a floor on n instead.
  if (!(n >= 1) || (!clears && n < rule.minDecisions))
    return { severity: 'unknown', sentence: `too few decisions to tell: n = ${n} (a verdict needs at least ${rule.minDecisions})` }
  const ba = result.balancedAccuracy
  const oc = result.orderConsistency ?? null
  const position = n >= rule.minDecisions ? positionEvidence(result) : null
  if (oc !== null && oc < rule.readsOrderConsistency && position !== null)
    return { severity: 'fail', sentence: `answers by position: order consistency ${whole(oc)}, ${position}` }

  const st = result.statistics
  const chance = st?.chance?.balancedAccuracy ?? result.manifest.chance
  const majority = st?.majorityBaseline?.balancedAccuracy ?? null
  const reference = Math.max(chance, majority ?? 0)
  const beaten = clears ? clears.betterThanChance && clears.betterThanMajority !== false : ba > reference + rule.chanceMargin
  if (!beaten) {
    const against = majority !== null && majority > chance ? `the majority baseline ${whole(majority)}` : `chance ${whole(chance)}`
    // Rows on which no scorer could clear the references (two lines, a majority baseline at 100%) say nothing of this one.
    if (clears?.decidable === false)
      return {
        severity: 'unknown',
        sentence: `too few decisions to tell: balanced accuracy ${whole(ba)} at n = ${n}, where even every decision right would not clear chance ${whole(chance)}${majority === null ? '' : ` and the majority baseline ${whole(majority)}`}`,
      }
    if (ba <= reference + rule.chanceMargin) return { severity: 'fail', sentence: `no better than guessing: balanced accuracy ${whole(ba)}, ${against}` }
    // Name the check that did not clear: the exact test against a guesser, else the interval against the majority baseline.
    const interval = st?.intervals?.balancedAccuracy
    const range = interval ? ` (interval ${whole(interval.lower)}–${whole(interval.upper)})` : ''
    const test = clears && !clears.betterThanChance && typeof clears.chanceP === 'number'
    const reason = test ? ` (${formatP(clears.chanceP!)} against a uniform guesser)` : range
    const target = test ? `chance ${whole(chance)}` : against
    return { severity: 'unknown', sentence: `too few decisions to tell: balanced accuracy ${whole(ba)}${reason} does not clear ${target} at n = ${n}` }
  }
  if (oc === null)
    return {
      severity: 'warn',
      sentence: `order not tested: balanced accuracy ${whole(ba)} from one ordering per decision, so answering by position would go unseen (debias cyclic measures it)`,
    }
  if (oc < rule.readsOrderConsistency)
    return { severity: 'warn', sentence: `answers change with the order shown: order consistency ${whole(oc)}, balanced accuracy ${whole(ba)}` }
  return { severity: 'pass', sentence: `reads the evidence: ${whole(ba)} balanced accuracy, ${whole(oc)} order consistency` }
}

/** The strongest sign that picks follow the slot, as a phrase, or `null` when there is none. */
function positionEvidence(result: EvalResultJson): string | null {
  const rule = VERDICT_RULE
  const top = topLetter(result.letterDistribution)
  if (top && top[1] >= rule.topLetterShare) return `letter ${top[0]} picked ${whole(top[1])}`
  const first = result.pairwise?.firstShownRate
  if (typeof first === 'number' && Math.abs(first - 0.5) >= rule.firstShownMargin)
    return `${first > 0.5 ? 'first' : 'second'}-shown option picked ${whole(first > 0.5 ? first : 1 - first)}`
  const bias = result.slotBias
  if (bias && typeof bias.p === 'number' && bias.p < rule.alpha) return `${top ? `letter ${top[0]} picked ${whole(top[1])}, ` : ''}slot bias ${formatP(bias.p)}`
  return null
}

/** One significant paired change: what moved, by how much, the evidence, and whether B is better. */
export interface PairedChange {
  metric: 'accuracy' | 'balanced accuracy' | 'order consistency' | 'answered by position'
  text: string
  better: boolean
}

/** Every paired change of a comparison that is significant at {@link VERDICT_RULE}.alpha, B − A. */
export function significantChanges(c: Comparison): PairedChange[] {
  const alpha = VERDICT_RULE.alpha
  const changes: PairedChange[] = []
  if (c.mcnemar.pTwoSided < alpha)
    changes.push({
      metric: 'accuracy',
      text: `accuracy ${signedPoints(c.accuracy.difference)} (exact McNemar ${formatP(c.mcnemar.pTwoSided)})`,
      better: c.accuracy.difference > 0,
    })
  const ba = c.balancedAccuracy
  if (ba.interval.lower > 0 || ba.interval.upper < 0)
    changes.push({
      metric: 'balanced accuracy',
      text: `balanced accuracy ${signedPoints(ba.difference)} (${Math.round(ba.interval.level * 100)}% paired bootstrap ${signedPointsInterval(ba.interval)})`,
      better: ba.difference > 0,
    })
  const oc = c.orderConsistency
  if (oc && oc.mcnemar.pTwoSided < alpha)
    changes.push({ metric: 'order consistency', text: `order consistency ${signedPoints(oc.difference)} (exact ${formatP(oc.mcnemar.pTwoSided)})`, better: oc.difference > 0 })
  const pos = c.answeredByPosition
  if (pos && pos.mcnemar.pTwoSided < alpha)
    changes.push({
      metric: 'answered by position',
      text: `decisions answered by position ${signedPoints(pos.difference)} (exact ${formatP(pos.mcnemar.pTwoSided)})`,
      better: pos.difference < 0,
    })
  return changes
}

/**
 * The verdict on a paired comparison: every significant change, worse ones first,
 * red when any change is for the worse; else what the set could have detected.
 */
export function comparisonVerdict(c: Comparison): RunVerdict {
  const changes = significantChanges(c)
  const { a, b } = c.labels
  if (changes.length === 0) {
    const same = c.mcnemar.discordant === 0 && (c.orderConsistency?.table.onlyA ?? 0) + (c.orderConsistency?.table.onlyB ?? 0) === 0
    if (same) return { severity: 'unknown', sentence: `no difference: every decision was answered equally right or wrong, and equally order-consistent, by ${a} and ${b}` }
    const mdd = c.minimumDetectableDifference
    const reach = tooSmallToDetect(mdd, c.n) ? `n = ${c.n}: too small to detect any change` : `at ${c.n} decisions only changes of about ${points(mdd)} or more are reliably detectable`
    return { severity: 'unknown', sentence: `no significant change from ${a} to ${b} (accuracy ${signedPoints(c.accuracy.difference)}, ${formatP(c.mcnemar.pTwoSided)}); ${reach}` }
  }
  const worse = changes.filter((change) => !change.better)
  const better = changes.filter((change) => change.better)
  const parts = [
    ...(worse.length > 0 ? [`${b} is worse than ${a}: ${worse.map((change) => change.text).join(', ')}`] : []),
    ...(better.length > 0 ? [`${worse.length > 0 ? 'better' : `${b} is better than ${a}`}: ${better.map((change) => change.text).join(', ')}`] : []),
  ]
  return { severity: worse.length === 0 ? 'pass' : better.length === 0 ? 'fail' : 'warn', sentence: parts.join('; ') }
}
