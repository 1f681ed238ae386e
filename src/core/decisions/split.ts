/** Splitting a set by its leakage unit (group, else state) without leaks. */
import { mulberry32 } from '../math/random.ts'
import { DataError } from '../support/errors.ts'
import type { Decision } from './schema.ts'

/** Options for {@link groupSplit}. */
export interface GroupSplitOptions {
  /** Share of groups (not rows) to put in the eval side, in (0, 1). */
  evalFraction: number
  /** PRNG seed; the same seed gives the same split. Default 0. */
  seed?: number
}

/**
 * Split decisions so that no group is on both sides. A group is the `group_id`, or
 * the state text when there is none: rows that share evidence must not leak from
 * train into eval, or every number is inflated.
 */
export function groupSplit(
  decisions: readonly Decision[],
  { evalFraction, seed = 0 }: GroupSplitOptions,
): { train: Decision[]; eval: Decision[] } {
  if (!(evalFraction > 0 && evalFraction < 1))
    throw new DataError(`evalFraction must be between 0 and 1 (exclusive), got ${evalFraction}`)
  const groups = [...new Set(decisions.map(groupOf))].sort()
  const random = mulberry32(seed)
  // Fisher–Yates over the sorted group names: order-independent of the input.
  for (let i = groups.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[groups[i], groups[j]] = [groups[j]!, groups[i]!]
  }
  const evalCount = Math.min(groups.length - 1, Math.max(1, Math.round(groups.length * evalFraction)))
  const evalGroups = new Set(groups.slice(0, evalCount))
  const train: Decision[] = []
  const evalSide: Decision[] = []
  for (const decision of decisions) (evalGroups.has(groupOf(decision)) ? evalSide : train).push(decision)
  return { train, eval: evalSide }
}

/** The leakage unit of a decision: its `group_id`, else its state. */
export function groupOf(decision: Decision): string {
  return decision.group_id != null ? `g:${decision.group_id}` : `s:${decision.state}`
}
