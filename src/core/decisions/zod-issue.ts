/**
 * How a zod validation failure reads in a {@link DataError}: the first issue's field
 * path (`criterion.options[1].id`) and a message saying what to do, not zod's phrasing.
 * One home for every schema-checked file (decisions, results, records).
 */
import type { z } from 'zod'

/** The field path of a zod issue: object keys joined by `.`, array indices as `[i]`; `''` for the value itself. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`
  return out
}

/** The first issue of `error` as a field path and a message (`is required` for a missing field, zod's "Invalid input: " dropped). */
export function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0]!
  const message =
    issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? 'is required' : issue.message.replace(/^Invalid input: /, '')
  return { field: fieldPath(issue.path), message }
}
