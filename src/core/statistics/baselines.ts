/** What a model must beat: majority and chance baselines, and PriDe's RStd (Zheng et al., ICLR 2024). */
import { wilsonInterval } from '../math/binomial.ts'
import { DEFAULT_LEVEL } from '../math/normal.ts'
import { recallByClass } from '../metrics/headline.ts'
import { dict, own } from '../support/dict.ts'
import type { Statistics } from '../result/statistics.ts'

/** The majority-class baseline of a labelled set, as the result reports it, with its per-row hits. */
export interface MajorityBaseline extends Omit<Statistics['majorityBaseline'], 'pairedTest'> {
  /** Per-row hit of the baseline, for paired tests against a model. */
  hits: boolean[]
}

/**
 * Majority-class baseline (docs/statistics.md#baselines-and-verdicts): within each group (the criterion
 * key; a single group when `groups` is omitted) always answer that group's most
 * frequent gold answer. Accuracy = Σ_g max_k n_gk / n; a constant predictor's
 * balanced accuracy is 1/K over the K classes present in gold.
 *
 * @param gold gold answer per row
 * @param groups group per row (criterion key); default one group
 */
export function majorityBaseline(
  gold: readonly string[],
  groups?: readonly string[],
  level = DEFAULT_LEVEL,
): MajorityBaseline {
  const groupOfRow = (i: number) => groups?.[i] ?? ''
  const counts = new Map<string, Map<string, number>>()
  gold.forEach((label, i) => {
    const group = groupOfRow(i)
    const byLabel = counts.get(group) ?? new Map<string, number>()
    byLabel.set(label, (byLabel.get(label) ?? 0) + 1)
    counts.set(group, byLabel)
  })
  const answers = dict<string>()
  for (const group of [...counts.keys()].sort()) {
    let best = ''
    let bestCount = -1
    for (const [label, count] of [...counts.get(group)!].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      if (count > bestCount) [best, bestCount] = [label, count]
    answers[group] = best
  }
  const predictions = gold.map((_, i) => own(answers, groupOfRow(i))!)
  const hits = gold.map((label, i) => predictions[i] === label)
  const successes = hits.filter(Boolean).length
  const recalls = [...recallByClass(gold, predictions).values()]
  return {
    answers,
    accuracy: gold.length === 0 ? 0 : successes / gold.length,
    interval: wilsonInterval(successes, gold.length, level),
    balancedAccuracy: recalls.length === 0 ? 0 : recalls.reduce((s, v) => s + v, 0) / recalls.length,
    hits,
  }
}

/**
 * Expected balanced accuracy (Brodersen et al. 2010, ICPR) of a uniform random guesser: for each gold class the
 * mean of 1/options over its rows, then the mean over classes (what `manifest.chance`
 * is for accuracy, but weighted like balanced accuracy).
 */
export function chanceBalancedAccuracy(gold: readonly string[], optionCounts: readonly number[]): number {
  const byClass = new Map<string, [sum: number, count: number]>()
  gold.forEach((label, i) => {
    const entry = byClass.get(label) ?? [0, 0]
    entry[0] += 1 / optionCounts[i]!
    entry[1]++
    byClass.set(label, entry)
  })
  const means = [...byClass.values()].map(([sum, count]) => sum / count)
  return means.length === 0 ? 0 : means.reduce((s, x) => s + x, 0) / means.length
}

/**
 * Probability that a uniform random guesser gives the same answer under all m
 * orderings of an n-option decision: n·(1/n)^m. With m = n (cyclic) that is
 * n^(1−n): 1/2, 1/9, 1/64, 1/625 for n = 2..5 (the probability a uniform guesser is right under all n rotations).
 */
export function chanceOrderConsistency(optionCount: number, orderingCount: number): number {
  if (orderingCount <= 1) return 1
  return optionCount * (1 / optionCount) ** orderingCount
}


/**
 * RStd, PriDe's selection-bias metric (Zheng et al., ICLR 2024, `debias_pride.py`):
 * the population standard deviation (ddof = 0) of per-class recall **in percent**,
 * over the classes present in `gold`. Called with slot letters as the classes, as in
 * PriDe. An always-A answerer with gold spread over A–D scores 43.3013. `null` for
 * no rows.
 */
export function rstd(gold: readonly string[], predictions: readonly string[]): number | null {
  const recalls = [...recallByClass(gold, predictions).values()].map((r) => 100 * r)
  if (recalls.length === 0) return null
  const mean = recalls.reduce((s, x) => s + x, 0) / recalls.length
  return Math.sqrt(recalls.reduce((s, x) => s + (x - mean) ** 2, 0) / recalls.length)
}
