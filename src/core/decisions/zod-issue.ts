/**
 * How a zod validation failure reads in a {@link DataError} for decisions, results and
 * records: the first issue's field path (`criterion.options[1].id`) and what to do, not zod's phrasing.
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
