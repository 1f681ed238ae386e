/** Item-level sharding (docs/scaling-out.md): which decisions the i-th of n parts scores, for the CLI and the plugin alike. */
import { createHash } from 'node:crypto'
import { ConfigError } from '../support/errors.ts'
import type { Decision } from '../decisions/schema.ts'

/** One part of a sharded run: `index` (1-based) of `count`. */
export interface ShardSpec {
  /** Which part, 1 ≤ index ≤ count. */
  readonly index: number
  /** How many parts, ≥ 1. */
  readonly count: number
}

/** `"2/4"` → `{ index: 2, count: 4 }`; anything else is a ConfigError naming `label`. */
export function parseShard(text: string, label = '--shard'): ShardSpec {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim())
  const index = match ? Number(match[1]) : NaN
  const count = match ? Number(match[2]) : NaN
  if (!match || !(count >= 1) || !(index >= 1 && index <= count))
    throw new ConfigError(`${label} must be i/n with 1 ≤ i ≤ n (e.g. 2/4), got ${JSON.stringify(text)}`)
  return { index, count }
}

/**
 * The sharding unit of a decision: its `group_id`, else its `id`, else its 0-based
 * position in the file. Every decision of a group lands in the same part.
 */
export function shardKey(decision: Decision, position: number): string {
  return decision.group_id != null ? `g:${decision.group_id}` : decision.id != null ? `d:${decision.id}` : `n:${position}`
}

/**
 * The 1-based part a sharding key belongs to among `count`: the first 48 bits of
 * sha256(key) modulo `count`. Stable across machines, runs and Node versions.
 */
export function shardOf(key: string, count: number): number {
  const head = createHash('sha256').update(key).digest().readUIntBE(0, 6)
  return (head % count) + 1
}

/** Positions (0-based, file order) of the decisions part `spec` scores. */
export function shardPositions(decisions: readonly Decision[], spec: ShardSpec): number[] {
  const out: number[] = []
  decisions.forEach((decision, position) => {
    if (shardOf(shardKey(decision, position), spec.count) === spec.index) out.push(position)
  })
  return out
}
