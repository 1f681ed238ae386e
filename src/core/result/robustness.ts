/** The order-robustness panel of a result and its pairwise audit: their shapes (computed by core/metrics). */

/** χ² goodness of fit of the letters picked against a position-blind reader. */
export interface SlotBias {
  /** Pearson's χ² statistic. */
  chiSquare: number
  /** Degrees of freedom: letters with a non-zero expectation, minus one. */
  df: number
  /** Upper-tail p-value of χ² under χ²(df). */
  p: number
  /** Cramér's V = sqrt(χ² / (N·(k − 1))), k = df + 1 letters, N picks counted; capped at 1. */
  cramersV: number
  /** 95% percentile bootstrap interval of V, resampling decisions (seeded); `null` when not computed (`statistics: false`). */
  cramersVInterval: [number, number] | null
}

/** The panel's numbers (EvalResult keys of the same names). */
export interface RobustnessPanel {
  /**
   * Share of decisions whose pick is the gold option under every ordering (OpenCompass
   * CircularEval's strict accuracy, `perf_circular`); a uniform guesser on n options
   * scores (1/n)^n. `null` when no decision was scored under more than one ordering.
   */
  circularAccuracy: number | null
  /** Mean correctness over all (decision, ordering) pairs (OpenCompass `acc_circular`); `null` as above. */
  orderingAccuracy: number | null
  /**
   * Accuracy over the (decision, ordering) pairs that showed the gold option at each
   * letter (Zheng et al., ICLR 2024; Pezeshkpour & Hruschka, NAACL 2024); `null` for a
   * letter that never showed gold, and for the whole entry as above.
   */
  accuracyByGoldSlot: Record<string, number | null> | null
  /** Max − min of `accuracyByGoldSlot`, in [0, 1]; a position-blind reader scores 0. `null` as above. */
  slotSensitivityGap: number | null
  /** χ² test of the letters picked against a position-blind reader, with Cramér's V; `null` as above. */
  slotBias: SlotBias | null
  /** KL(gold-letter distribution ‖ picked-letter distribution) in nats (Choi et al., 2025), picked shares floored at `CKLD_FLOOR`; `null` as above. */
  ckld: number | null
  /** Pairwise judge audit over two-candidate decisions (Shi et al., 2024); `null` when there is no pair judged in both orders. */
  pairwise: PairwiseAudit | null
}

/** The audit (`pairwise` in results; JSON keys exactly these names). */
export interface PairwiseAudit {
  /** Pairs judged in both orders. */
  pairs: number
  /** Share of pairs classified consistent, in [0, 1] (undecided pairs count against it). */
  positionConsistency: number
  /** Pairs classified primacy (favouring the first-shown candidate). */
  primacy: number
  /** Pairs classified recency (favouring the second-shown candidate). */
  recency: number
  /** (recency − primacy) / pairs, in [−1, 1]: 0 fair, negative favours the first-shown. */
  preferenceFairness: number
  /** Share of candidate picks (over all pair orderings; tie options and tied maxima left out) that chose the first-shown candidate; `null` when there is none. */
  firstShownRate: number | null
  /** Share of (pair, ordering) whose pick was the same, untied, in every epoch; present only with more than one epoch. */
  repetitionStability?: number
}
