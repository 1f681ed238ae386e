/** A stable hash of the scored rows, over their canonical JSON. */
import { createHash } from 'node:crypto'
import type { Decision } from './schema.ts'

/**
 * A stable hash of the scored rows: sha256 over their canonical JSON (sorted keys,
 * absent optional fields dropped), truncated to 16 hex digits. Two results with the
 * same fingerprint were computed on identical labelled data in the same order.
 */
export function fingerprint(decisions: readonly Decision[]): string {
  const hash = createHash('sha256')
  for (const decision of decisions) hash.update(canonicalDecision(decision) + '\n')
  return hash.digest('hex').slice(0, 16)
}

/**
 * {@link canonicalJson} of a decision, specialised for its known shape: the same
 * text (keys sorted, null optionals dropped, unknown keys ignored as the schema
 * strips them) at a fraction of the generic cost on large sets.
 */
function canonicalDecision(d: Decision): string {
  const c = d.criterion
  return JSON.stringify({
    answer_id: d.answer_id ?? undefined,
    criterion: {
      key: c.key,
      // `pinned` changes the orderings scored, so it is part of the data's identity (absent when false: old fingerprints hold).
      options: c.options.map((o) => (o.pinned ? { id: o.id, pinned: true, text: o.text } : { id: o.id, text: o.text })),
      question: c.question ?? undefined,
    },
    group_id: d.group_id ?? undefined,
    id: d.id ?? undefined,
    state: d.state,
  })
}

/** JSON with sorted object keys and `undefined`/`null` optional fields dropped. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v != null)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}
