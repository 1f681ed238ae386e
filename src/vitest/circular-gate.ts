/**
 * The baseline gate's second question: did strict correctness (right under every
 * ordering, `circularAccuracy`) regress? A paired exact McNemar test on the decisions
 * whose strict correctness changed, exactly as the order-consistency gate pairs
 * consistency flags. Pure and separate so the gate can store and compare these flags
 * beside the consistency flags.
 */
import type { DecisionRecord } from '../core/index.ts'
import { mcnemarRegression } from './mcnemar.ts'

/** Per decision (record id): whether its pick was the gold option under every ordering. Repeated ids get `~2`, `~3`, …. */
export function strictFlags(records: readonly Pick<DecisionRecord, 'id' | 'gold' | 'picks'>[]): Map<string, boolean> {
  const out = new Map<string, boolean>()
  for (const record of records) {
    let key = record.id
    for (let k = 2; out.has(key); k++) key = `${record.id}~${k}`
    out.set(key, record.picks.length > 0 && record.picks.every((pick) => pick === record.gold))
  }
  return out
}

/** What the strict-correctness comparison found. */
export interface CircularRegression {
  /** Decisions strictly correct at baseline and not now. */
  worse: number
  /** Decisions strictly correct now and not at baseline. */
  better: number
  /** One-sided exact McNemar p that strict correctness dropped. */
  p: number
  /** Whether `p < alpha`. */
  regressed: boolean
}

/**
 * Pair decisions by id (ids present on one side only are not paired) and test whether
 * strict correctness dropped: `P(Bin(worse + better, ½) ≥ worse) < alpha`.
 */
export function circularRegression(
  baseline: ReadonlyMap<string, boolean>,
  current: ReadonlyMap<string, boolean>,
  alpha: number,
): CircularRegression {
  let worse = 0
  let better = 0
  for (const [id, now] of current) {
    const before = baseline.get(id)
    if (before === undefined) continue
    if (before && !now) worse++
    else if (!before && now) better++
  }
  const { p } = mcnemarRegression(worse, better)
  return { worse, better, p, regressed: p < alpha }
}
