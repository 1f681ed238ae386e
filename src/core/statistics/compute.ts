/**
 * The `statistics` of one evaluation: how far each headline could move by chance, the baselines
 * it must beat, and the smallest detectable change. From the records alone, so a `--records-out` file works too.
 */
import { balancedAccuracyBoundsExact, unlessCollapsed } from './boundary-intervals.ts'
import { expectedCalibrationError, isConsistent } from '../metrics/headline.ts'
import { recordConfidence } from '../metrics/from-records.ts'
import type { DecisionRecord } from '../result/record.ts'
import { chanceBalancedAccuracy, chanceOrderConsistency, majorityBaseline, rstd } from './baselines.ts'
import { classIndices, defaultResamples, percentileBootstrapCounts, weightedBalancedAccuracy, type BootstrapInterval, type BootstrapOptions } from '../math/bootstrap.ts'
import { clopperPearsonInterval, mcnemarExact, wilsonInterval, type McNemarResult } from '../math/binomial.ts'
import { DEFAULT_LEVEL, normalQuantile, type Interval } from '../math/normal.ts'
import { designEffect, minimumDetectableDifference } from '../math/power.ts'
import { eceReliability } from './calibration.ts'
import type { Statistics, Verdict } from '../result/statistics.ts'

export type { Statistics, Verdict }

/** Options for {@link computeStatistics}. */
export interface StatisticsOptions {
  /** Bootstrap and simulation seed. Default 0. */
  seed?: number
  /** Bootstrap replicates. Default 2000 (fewer above 10^4 decisions, see `defaultResamples`). */
  resamples?: number
  /** Confidence level of every interval. Default 0.95. */
  level?: number
  /**
   * Gold answer's slot letter per record in the order the decision was originally
   * presented (A for the first option). Needed for RStd, which PriDe defines over slot
   * letters; without it `rstd` is `null`.
   */
  goldLetters?: readonly string[]
}


/**
 * Intervals, baselines, power and bias diagnostics for one evaluation's records (input order).
 * With any `groups` (`group_id` per record) the bootstrap resamples whole groups and the MDD includes their design effect.
 */
export function computeStatistics(
  records: readonly DecisionRecord[],
  groups?: readonly (string | null | undefined)[] | null,
  options: StatisticsOptions = {},
): Statistics {
  const { seed = 0, level = DEFAULT_LEVEL, goldLetters } = options
  const resamples = options.resamples ?? defaultResamples(records.length)
  const n = records.length
  const clusters = groups && groups.some((g) => g != null) ? groups : undefined
  if (clusters && clusters.length !== n) throw new RangeError(`groups has ${clusters.length} entries for ${n} records`)

  const gold = records.map((r) => r.gold)
  const hits = records.map((r) => r.prediction === r.gold)
  const successes = hits.filter(Boolean).length
  const optionCounts = records.map((r) => Math.max(1, Object.keys(r.probabilities).length))
  const bootstrap = { seed, resamples, level, ...(clusters ? { groups: clusters } : {}) }

  const accuracyInterval = wilsonInterval(successes, n, level)
  const baInterval = balancedAccuracyInterval(gold, hits, bootstrap)
  // Order consistency only means something for decisions scored under several orderings.
  const multi = records.map((r, i) => [r, i] as const).filter(([r]) => r.picks.length > 1)
  const ocInterval = orderConsistencyInterval(multi, { ...bootstrap, ...(clusters ? { groups: multi.map(([, i]) => clusters[i]) } : {}) })
  const chance = {
    accuracy: optionCounts.reduce((s, k) => s + 1 / k, 0) / Math.max(1, n),
    balancedAccuracy: chanceBalancedAccuracy(gold, optionCounts),
    orderConsistency:
      multi.length === 0
        ? null
        : multi.reduce((s, [r, i]) => s + chanceOrderConsistency(optionCounts[i]!, r.picks.length), 0) / multi.length,
  }
  const majority = majorityBaseline(gold, records.map((r) => r.criterion), level)
  const confidences = records.map(recordConfidence)
  const eceRule = eceReliability(expectedCalibrationError(confidences, hits) ?? 0, confidences, { seed, simulations: 500 })

  return {
    intervals: { accuracy: accuracyInterval, balancedAccuracy: baInterval, orderConsistency: ocInterval },
    chance,
    majorityBaseline: {
      answers: majority.answers,
      accuracy: majority.accuracy,
      interval: majority.interval,
      balancedAccuracy: majority.balancedAccuracy,
      pairedTest: versusBaseline(hits, majority.hits),
    },
    minimumDetectableDifference: detectableDifference(hits, successes, level, clusters),
    rstd: goldLetters ? rstd(goldLetters, goldLetters.map((letter, i) => (hits[i] ? letter : `not ${letter}`))) : null,
    rstdReading: !goldLetters || n === 0 ? null : new Set(goldLetters).size < 2 ? 'one-letter' : successes === 0 ? 'all-wrong' : 'ok',
    eceReliable: eceRule.reliable,
    eceNote: { reason: eceRule.reason, floorMean: eceRule.floor.mean, floorP95: eceRule.floor.p95 },
    verdicts: {
      accuracy: verdict(accuracyInterval, chance.accuracy, majority.accuracy, 'chance'),
      balancedAccuracy: verdict(baInterval, chance.balancedAccuracy, majority.balancedAccuracy, 'chance'),
      orderConsistency:
        ocInterval && chance.orderConsistency !== null
          ? verdict(ocInterval, chance.orderConsistency, null, 'a random guesser')
          : null,
    },
    orderConsistencyDecisions: multi.length,
    settings: { seed, resamples, level },
  }
}

type Bootstrap = BootstrapOptions & { seed: number; level: number }

/** Balanced accuracy's bootstrap interval; where it collapses (all wrong, all right), the exact per-class interval. */
function balancedAccuracyInterval(gold: readonly string[], hits: readonly boolean[], bootstrap: Bootstrap): BootstrapInterval {
  // Typed arrays and multiplicities: 2000 replicates of 10^5 decisions in well under a second.
  const { classOf, classes } = classIndices(gold)
  const hitBytes = Uint8Array.from(hits, Number)
  const scratch = new Float64Array(2 * classes)
  const interval = percentileBootstrapCounts(gold.length, (w) => weightedBalancedAccuracy(classOf, hitBytes, classes, w, scratch), bootstrap)
  const exact = () => balancedAccuracyBoundsExact(classCounts(classOf, hitBytes, classes), bootstrap.level)
  return (interval && unlessCollapsed(interval, exact, 'clopper-pearson-bonferroni')) ?? {
    estimate: 0,
    lower: 0,
    upper: 1,
    level: bootstrap.level,
    method: 'percentile-bootstrap',
    resamples: 0,
    unit: 'items',
    units: 0,
    seed: bootstrap.seed,
  }
}

/** Order consistency's bootstrap interval over the decisions scored under several orderings; Clopper–Pearson where it collapses. */
function orderConsistencyInterval(multi: readonly (readonly [DecisionRecord, number])[], bootstrap: Bootstrap): BootstrapInterval | null {
  if (multi.length === 0) return null
  const consistent = Uint8Array.from(multi, ([r]) => (isConsistent(r.picks) ? 1 : 0))
  const interval = percentileBootstrapCounts(
    multi.length,
    (w) => {
      let drawn = 0
      let yes = 0
      for (let i = 0; i < w.length; i++) {
        drawn += w[i]!
        yes += w[i]! * consistent[i]!
      }
      return drawn === 0 ? NaN : yes / drawn
    },
    bootstrap,
  )
  const consistentCount = consistent.reduce((s, v) => s + v, 0)
  return interval && unlessCollapsed(interval, () => clopperPearsonInterval(consistentCount, multi.length, bootstrap.level), 'clopper-pearson')
}

/** Exact McNemar test of the model against a baseline on the same decisions. */
function versusBaseline(hits: readonly boolean[], baselineHits: readonly boolean[]): McNemarResult {
  let modelOnly = 0
  let baselineOnly = 0
  hits.forEach((hit, i) => {
    if (hit && !baselineHits[i]) modelOnly++
    if (!hit && baselineHits[i]) baselineOnly++
  })
  return mcnemarExact(modelOnly, baselineOnly)
}

/** The smallest accuracy change this set could detect, with the groups' design effect. */
function detectableDifference(hits: readonly boolean[], successes: number, level: number, clusters: readonly (string | null | undefined)[] | undefined) {
  // Hit variance from the Wilson centre, so a perfect or hopeless run does not claim zero variance.
  const n = hits.length
  const z = normalQuantile(1 - (1 - level) / 2)
  const centre = n === 0 ? 0.5 : (successes + (z * z) / 2) / (n + z * z)
  const deff = clusters ? designEffect(hits.map(Number), clusters) : 1
  return minimumDetectableDifference(n, { accuracy: centre, designEffect: deff })
}

/** Better than chance when the interval's lower bound clears it; then better than the majority baseline, when there is one. */
function verdict(interval: Interval, chanceValue: number, majorityValue: number | null, chanceWord: string): Verdict {
  const betterThanChance = interval.lower > chanceValue
  const betterThanMajority = majorityValue === null ? null : interval.lower > majorityValue
  return {
    betterThanChance,
    betterThanMajority,
    message: !betterThanChance ? `not better than ${chanceWord}` : betterThanMajority === false ? 'not better than the majority baseline' : null,
  }
}

/** `[hits, total]` per class index, for the exact balanced-accuracy bounds. */
function classCounts(classOf: Int32Array, hit: Uint8Array, classes: number): [number, number][] {
  const counts = Array.from({ length: classes }, (): [number, number] => [0, 0])
  for (let i = 0; i < classOf.length; i++) {
    const entry = counts[classOf[i]!]!
    entry[1]++
    entry[0] += hit[i]!
  }
  return counts
}
