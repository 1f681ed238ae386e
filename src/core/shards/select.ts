/**
 * Which decisions one part of a sharded run scores (`sceptic evaluate --shard`, and
 * `describeDecisions` under `vitest --shard`), with what the merge needs to reassemble the data file.
 */
import { implicitId } from '../decisions/id.ts'
import { fingerprint } from '../decisions/fingerprint.ts'
import { isLabelled, type Decision } from '../decisions/schema.ts'
import { ConfigError } from '../support/errors.ts'
import { shardPositions, type ShardSpec } from './spec.ts'

/** One part's share of the data. */
export interface ShardSelection {
  /** The decisions to evaluate, file order; a labelled row without `id` gets the id an unsharded run gives it ({@link implicitId}). */
  readonly evaluate: Decision[]
  /** The same decisions verbatim with their 0-based file positions (for the part file). */
  readonly rows: { position: number; decision: Decision }[]
  /** Fingerprint of the whole file's labelled rows (what the unsharded run reports). */
  readonly fingerprint: string
}

/**
 * Select part `spec` of `decisions`. `pride` is refused (its sample is drawn over the
 * whole set); `label` names the option in that message (`--shard`, `vitest --shard`).
 */
export function selectShard(decisions: readonly Decision[], spec: ShardSpec, debias: string, label = '--shard'): ShardSelection {
  if (debias === 'pride')
    throw new ConfigError(`${label} cannot be used with --debias pride: its prior is estimated from a sample of the whole set; use cyclic`)
  const labelledIndex = new Map<number, number>()
  decisions.forEach((d, position) => {
    if (isLabelled(d)) labelledIndex.set(position, labelledIndex.size)
  })
  const positions = shardPositions(decisions, spec)
  return {
    evaluate: positions.map((p) => {
      const d = decisions[p]!
      return d.id == null && labelledIndex.has(p) ? { ...d, id: implicitId(labelledIndex.get(p)!) } : d
    }),
    rows: positions.map((position) => ({ position, decision: decisions[position]! })),
    fingerprint: fingerprint(decisions.filter(isLabelled)),
  }
}
