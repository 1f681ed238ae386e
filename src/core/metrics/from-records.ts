/** Metrics read back from a run's records (`--records-out`): reliability bins, expected letter shares, chance per criterion. */
import { dict, own } from '../support/dict.ts'
import { largest } from '../support/spreadless.ts'
import type { DecisionRecord } from '../result/record.ts'
import { calibrationBins, ECE_BINS, type ReliabilityBin } from './headline.ts'

/** The probability the record's answer was given; a tie's is the tied maximum, as the evaluator's ECE reads it. */
export function recordConfidence(record: DecisionRecord): number {
  return record.prediction === null ? largest(Object.values(record.probabilities)) : (own(record.probabilities, record.prediction) ?? 0)
}

/** Reliability bins of a run's records: the binning of the run's own ECE (`calibrationBins`). */
export function reliabilityBins(records: readonly DecisionRecord[], bins = ECE_BINS): ReliabilityBin[] {
  return calibrationBins(records.map(recordConfidence), records.map((r) => r.prediction === r.gold), bins)
}

/**
 * The letter shares a position-blind answerer would produce: each ordering of a
 * k-option decision spreads 1/k over its k letters, so with mixed option counts the
 * late letters get less. Without records: 1/letters.
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
