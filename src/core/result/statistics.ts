/** The `statistics` of a result: its shape (computed by core/statistics/compute.ts). */
import type { BootstrapInterval } from '../math/bootstrap.ts'
import type { McNemarResult } from '../math/binomial.ts'
import type { Interval } from '../math/normal.ts'

/** Whether a headline number beats its trivial references: chance by an exact test, the majority baseline by the interval's lower bound. */
export interface Verdict {
  /** The exact test against a uniform random guesser rejects at one-sided (1 − level)/2: `chanceP` below it. */
  betterThanChance: boolean
  /**
   * One-sided p-value that a uniform random guesser on the same rows scores at least this much:
   * Poisson-binomial for accuracy and order consistency, the convolution over gold classes for
   * balanced accuracy. Absent from result files written before 0.4.
   */
  chanceP?: number
  /** The lower bound is above the majority baseline's score; `null` where no such baseline applies (order consistency). */
  betterThanMajority: boolean | null
  /** `'not better than chance'`, `'not better than the majority baseline'`, `'not better than a random guesser'`, or `null` when it beats both. */
  message: string | null
  /**
   * Balanced accuracy only: whether these rows can show it at all, i.e. every decision right
   * would clear both references. `false` on a handful of decisions, or where the majority
   * baseline is already 100%. Depends on the rows, never on the hits.
   */
  decidable?: boolean
}

/** Everything {@link computeStatistics} returns. Plain JSON (no arrays per row). */
export interface Statistics {
  /** 95% intervals of the three headline numbers. */
  intervals: {
    /** Wilson score interval of accuracy. */
    accuracy: Interval
    /**
     * MOVER-Wilson interval of balanced accuracy (`method: 'mover-wilson'`, Zou & Donner 2008)
     * on all data, with each class's effective size n_c / deff when group ids are given.
     */
    balancedAccuracy: BootstrapInterval
    /**
     * Wilson interval of order consistency over the decisions scored under more than one
     * ordering (`null` if none was), on the effective size n / deff when group ids are given.
     */
    orderConsistency: BootstrapInterval | null
  }
  /** What a uniform random guesser scores on these rows. */
  chance: {
    /** Mean of 1/options (equals `manifest.chance`). */
    accuracy: number
    /** Per gold class mean of 1/options, then the mean over classes. */
    balancedAccuracy: number
    /** Mean over multi-ordering decisions of n·(1/n)^m (n^(1−n) under cyclic); `null` when none. */
    orderConsistency: number | null
  }
  /** Always answer each criterion's most frequent gold answer, scored on the same rows. */
  majorityBaseline: {
    /** The baseline's answer per criterion key: its most frequent gold answer (ties: first in sorted order). */
    answers: Record<string, string>
    /** Its accuracy, Σ_groups max_k n_gk / n (in-sample, so slightly flattering to the baseline). */
    accuracy: number
    /** Wilson interval of its accuracy. */
    interval: Interval
    balancedAccuracy: number
    /** Exact McNemar of model hits (b: model right, baseline wrong) against baseline hits (c); `pBGreater` is the one-sided p that the model is better. */
    pairedTest: McNemarResult
  }
  /**
   * Smallest accuracy difference (0–1) a paired comparison of two models on this set
   * detects with 80% power at α = 0.05 two-sided (Miller 2024 Eq. 10; ρ = 0.5, the
   * design effect of `groups` included). See `minimumDetectableDifference` in stats.ts.
   */
  minimumDetectableDifference: number
  /** PriDe's RStd in percent over the gold answer's original slot letter; `null` without `goldLetters`. */
  rstd: number | null
  /**
   * What RStd can say here: `'ok'`; `'one-letter'` when every gold answer sits on one
   * letter (a spread over one value is 0 whatever the model does); `'all-wrong'` when
   * every recall is 0 (0 then means nothing was answered right, not that no letter is
   * favoured); `null` without `goldLetters`.
   */
  rstdReading: 'ok' | 'one-letter' | 'all-wrong' | null
  /** Whether binned ECE can be trusted here (n ≥ 300 and above the perfect-calibration noise floor). */
  eceReliable: boolean
  /** The ECE rule's details: why not, and the simulated floor (mean and 95th percentile). */
  eceNote: { reason: string | null; floorMean: number; floorP95: number }
  /** Headline verdicts against chance (exact tests) and the majority baseline (interval lower bounds). */
  verdicts: {
    accuracy: Verdict
    balancedAccuracy: Verdict
    orderConsistency: Verdict | null
  }
  /** Decisions the order-consistency interval is over (all of them, except under `pride`: the sampled ones). */
  orderConsistencyDecisions: number
  /** Seed, replicates and level used. */
  settings: { seed: number; resamples: number; level: number }
}
