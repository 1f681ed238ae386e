/**
 * Prefix sharing, the planning half (pure, no onnxruntime): which requests of a call
 * share a leading run of token ids long enough to score once. The worker then runs
 * that prefix once and only each request's remaining tokens against its key/value
 * cache. Everything here works on token ids, never on text: a split in the middle of
 * a word would change how the text tokenizes, a split on ids cannot.
 */
import { appendAll } from '../../../core/support/spreadless.ts'

/** Requests scored against one shared prefix. */
export interface PrefixGroup {
  /** Request indices, in call order. */
  readonly rows: readonly number[]
  /** Tokens every row shares at its start, always shorter than every row (each keeps ≥ 1 token to read out). */
  readonly prefixLength: number
}

/** What {@link groupByPrefix} decided. */
export interface PrefixPlan {
  /** Groups of ≥ 2 requests sharing ≥ `minPrefix` tokens. */
  readonly groups: readonly PrefixGroup[]
  /** Requests scored as full prompts (no useful prefix in common with a neighbour). */
  readonly singles: readonly number[]
}

/** Length of the common leading run of `a[0..limit)` and `b`. */
export function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>, limit = Math.min(a.length, b.length)): number {
  const n = Math.min(limit, a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/**
 * Group adjacent requests by their common token prefix. Adjacent only: the evaluator
 * sends a decision's orderings (and its epochs) next to each other, and decisions on
 * one state (several criteria on one ticket) are adjacent when the data lists them so;
 * a scan over neighbours finds those in O(tokens) without hashing every prefix.
 *
 * A request joins the open group when doing so does not lose shared work: with `k`
 * members sharing `P` tokens the group saves `(k − 1)·P` tokens, and it takes the
 * newcomer only if `k·P' ≥ (k − 1)·P` for the new, shorter common prefix `P'`. So a
 * second criterion on the same ticket (prefix shrinks from question to evidence) joins,
 * while the next ticket (sharing only a system preamble) starts a new group.
 */
export function groupByPrefix(ids: readonly ArrayLike<number>[], minPrefix = 16): PrefixPlan {
  const groups: PrefixGroup[] = []
  const singles: number[] = []
  let rows: number[] = []
  let shared = 0
  const flush = (): void => {
    if (rows.length >= 2 && shared >= minPrefix) groups.push({ rows, prefixLength: shared })
    else appendAll(singles, rows)
    rows = []
  }
  for (let index = 0; index < ids.length; index++) {
    const row = ids[index]!
    if (rows.length === 0) {
      rows = [index]
      shared = row.length - 1
      continue
    }
    // Every member keeps at least its last token outside the prefix: that is the position read out.
    const next = Math.min(commonPrefix(ids[rows[0]!]!, row, shared), row.length - 1)
    if (next >= minPrefix && rows.length * next >= (rows.length - 1) * shared) {
      rows.push(index)
      shared = next
    } else {
      flush()
      rows = [index]
      shared = row.length - 1
    }
  }
  flush()
  singles.sort((a, b) => a - b)
  return { groups, singles }
}
