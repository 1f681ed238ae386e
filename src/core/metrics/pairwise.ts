/**
 * Pairwise judge audit (Shi et al., "Judging the Judges: A Systematic Study of
 * Position Bias in LLM-as-a-Judge", 2024, arXiv 2406.07791). A *pair* is a decision
 * with exactly two unpinned options (two candidates, optionally a pinned tie option)
 * judged in both orders. Each pair is classified by what was picked, by position, in
 * the first order and in the swapped one, as in the paper's released code:
 * (A, B), (B, A), (tie, tie) are consistent; (A, A), (A, tie), (tie, A) primacy;
 * (B, B), (B, tie), (tie, B) recency. "A" is the candidate shown first. A pick whose
 * maximum is tied (no answer, `none`) makes the pair undecided: neither consistent nor
 * primacy nor recency, so a flat reader is never read as fair or as biased.
 */
import type { Ordering } from '../requests/orderings.ts'
import type { PairwiseAudit } from '../result/robustness.ts'

export type { PairwiseAudit }

/** One pair as scored: the picked slot under each of its two orderings. */
export interface PairInput {
  /** The two unpinned slots, ascending: the first-shown and second-shown candidate's slot. */
  movable: readonly number[]
  /** The two orderings (identity, then the swap). */
  orderings: readonly Ordering[]
  /** Picked slot under each ordering; −1 where the ordering's maximum is tied. */
  picked: readonly number[]
  /** Picked slot per epoch under each ordering; only when the run had more than one epoch. */
  epochPicks?: readonly (readonly number[])[]
}


/** The position of a pick: the first-shown candidate, the second-shown, a pinned (tie) option, or none (a tied maximum). */
export type PairPosition = 'A' | 'B' | 'tie' | 'none'

/** A pair's class under Shi et al.'s rule; `undecided` when either order's pick is tied. */
export type PairClass = 'consistent' | 'primacy' | 'recency' | 'undecided'

/** Classify a pair from its picks by position in the first and the swapped order. */
export function classifyPair(first: PairPosition, swapped: PairPosition): PairClass {
  if (first === 'none' || swapped === 'none') return 'undecided'
  if ((first === 'A' && swapped === 'B') || (first === 'B' && swapped === 'A') || (first === 'tie' && swapped === 'tie')) return 'consistent'
  // What is left: (A, A), (A, tie), (tie, A) and (B, B), (B, tie), (tie, B).
  if (first === 'A' || swapped === 'A') return 'primacy'
  return 'recency'
}

/** Whether a decision is a pair: two unpinned options, judged under exactly two orderings. */
export function isPair(movable: readonly number[], orderingCount: number): boolean {
  return movable.length === 2 && orderingCount === 2
}

function position(slot: number, movable: readonly number[]): PairPosition {
  return slot < 0 ? 'none' : slot === movable[0] ? 'A' : slot === movable[1] ? 'B' : 'tie'
}

/** The audit over every pair; `null` when there is none. */
export function pairwiseAudit(pairs: readonly PairInput[]): PairwiseAudit | null {
  if (pairs.length === 0) return null
  let consistent = 0
  let primacy = 0
  let recency = 0
  let first = 0
  let nonTie = 0
  let stable = 0
  let repeated = 0
  for (const pair of pairs) {
    const [p0, p1] = pair.picked.map((slot) => position(slot, pair.movable)) as [PairPosition, PairPosition]
    const kind = classifyPair(p0, p1)
    if (kind === 'consistent') consistent++
    else if (kind === 'primacy') primacy++
    else if (kind === 'recency') recency++
    for (const p of [p0, p1])
      if (p === 'A' || p === 'B') {
        nonTie++
        if (p === 'A') first++
      }
    for (const epochs of pair.epochPicks ?? []) {
      repeated++
      if (epochs[0]! >= 0 && epochs.every((slot) => slot === epochs[0])) stable++
    }
  }
  const n = pairs.length
  return {
    pairs: n,
    positionConsistency: consistent / n,
    primacy,
    recency,
    preferenceFairness: (recency - primacy) / n,
    firstShownRate: nonTie === 0 ? null : first / nonTie,
    ...(repeated > 0 ? { repetitionStability: stable / repeated } : {}),
  }
}
