/**
 * The id rule: what a decision is called in records, failures, baselines, comparisons,
 * shard parts and messages (docs/data-format.md, "What happens to each row"). Its own
 * `id` when it has one; else, for a labelled row, `#k`, its 1-based position among the
 * labelled rows of its set. {@link uniqueIds} refuses a set where an id repeats or a
 * given id equals another row's implicit one, so every labelled decision's id is unique.
 */
import { DataError } from '../support/errors.ts'

/** The implicit id of the labelled row at 0-based `labelledIndex` (its position among the labelled rows): `#1`, `#2`, … */
export function implicitId(labelledIndex: number): string {
  return `#${labelledIndex + 1}`
}

/** A labelled decision's id: its own `id`, else {@link implicitId} of `labelledIndex` (0-based, among the labelled rows). */
export function decisionId(decision: { readonly id?: string | null | undefined }, labelledIndex: number): string {
  return decision.id ?? implicitId(labelledIndex)
}

/** Where a decision was read: file (or array name) and 1-based line (or element). */
interface IdLocation {
  readonly file?: string | undefined
  readonly line?: number | undefined
}

/**
 * The uniqueness rule over one set, fed its rows in order: a given `id` may appear once,
 * and no given `id` may equal a labelled row's implicit one (`#k`), since records,
 * baselines and `compare` pair decisions by id. The offending row is a DataError naming
 * its location, field `id`, and the line of the other.
 */
export function uniqueIds() {
  const seen = new Map<string, { line: number | undefined; implicit: boolean }>()
  let labelled = 0
  return {
    /** Check the next row: its given `id` (if any) and whether it is labelled. */
    check(given: string | null | undefined, isLabelled: boolean, location: IdLocation): void {
      const id = given ?? (isLabelled ? implicitId(labelled) : undefined)
      if (isLabelled) labelled++
      if (id === undefined) return
      const first = seen.get(id)
      if (first) throw new DataError(collision(id, given == null, first), { ...location, field: 'id' })
      seen.set(id, { line: location.line, implicit: given == null })
    },
  }
}

/** Why `id` is refused: given twice, or a given id equal to a row's implicit one. */
function collision(id: string, implicit: boolean, first: { line: number | undefined; implicit: boolean }): string {
  const quoted = JSON.stringify(id)
  const onLine = first.line === undefined ? 'an earlier row' : `line ${first.line}`
  const rule = 'a labelled row without id goes by "#k", its position among the labelled rows'
  if (implicit)
    return `this labelled row has no id, so it goes by ${quoted} (${rule}), but ${onLine} gives ${quoted} as its id; give one of the two another id`
  if (first.implicit)
    return `decision id ${quoted} is the implicit id of the labelled row on ${onLine} (${rule}); give one of the two another id`
  return `duplicate decision id ${quoted}${first.line === undefined ? '' : ` (first on line ${first.line})`}; ids must be unique, since baselines and compare pair decisions by id`
}
