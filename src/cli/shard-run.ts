/** `sceptic evaluate --shard i/n`: where the part file goes for `sceptic merge` (docs/scaling-out.md). */

/** The part file written beside a records file: `X.records.jsonl` → `X.records.shard.jsonl`. */
export function partFileOf(recordsPath: string): string {
  return recordsPath.replace(/\.jsonl$/i, '') + '.shard.jsonl'
}
