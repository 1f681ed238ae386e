/**
 * `sceptic evaluate --shard i/n`: the part file it leaves beside its records for
 * `sceptic merge` (docs/scaling-out.md). Which decisions a part scores is decided in
 * core (`selectShard`), shared with `describeDecisions({ shard: 'decisions' })`.
 */
export { selectShard, type ShardSelection } from '../core/shards/select.ts'

/** The part file written beside a records file: `X.records.jsonl` → `X.records.shard.jsonl`. */
export function partFileOf(recordsPath: string): string {
  return recordsPath.replace(/\.jsonl$/i, '') + '.shard.jsonl'
}
