/** One labelled decision as the evaluator reports it: its record (a `--records-out` line) or its failure. */

/** One labelled decision as scored, in input order (the `--records-out` JSONL line). */
export interface DecisionRecord {
  /** The decision's `id`, or its 1-based position among the labelled rows when it has none. */
  id: string
  /** The criterion key. */
  criterion: string
  /** Gold option id. */
  gold: string
  /** Final predicted option id (argmax of the averaged probabilities, first maximum wins). */
  prediction: string
  /** Final probability per option id, renormalised to sum to 1. */
  probabilities: Record<string, number>
  /** Option id picked under each ordering, in ordering order. */
  picks: string[]
  /** Letter (slot) picked under each ordering. */
  letters: string[]
  /** First 16 hex digits of sha256 of the prompt as presented in the first ordering. */
  promptHash?: string
  /** That prompt's text; only with `storePrompts: true`. */
  prompt?: string
  /** Flags the scorer raised on this decision's requests; present only when there are any. */
  flags?: string[]
  /** Correctness (1/0) per epoch; present only when `epochs > 1`. */
  epochValues?: number[]
  /** The reduced score of `epochValues`; present only when `epochs > 1`. */
  value?: number
}

/** A labelled decision that could not be scored. Counted, never dropped. */
export interface DecisionFailure {
  /** Decision id (or `#k`). */
  id: string
  /** Criterion key. */
  criterion: string
  /** The failure bucket of its first failed request. */
  reason: string
  /** What happened (no secrets). */
  message: string
}
