/**
 * Reading the result files sceptic writes (`--json-out`, a whole `EvalResult`, `--records-out`)
 * against their schemas, so a bad file reads the same in every command: a {@link DataError}
 * naming the file, the line and the field.
 */
import type { z } from 'zod'
import { DataError } from '../support/errors.ts'
import { DecisionRecordSchema, type DecisionRecord } from './record.ts'
import { EvalResultJsonSchema, EvalResultSchema, type EvalResultJson } from './result.ts'
import { firstIssue } from '../decisions/zod-issue.ts'
import { parseJsonText } from '../support/json-text.ts'

const JSON_OUT = 'sceptic evaluate --json-out'
const RECORDS_OUT = 'sceptic evaluate --records-out'

/**
 * Parse and check a `--json-out` document. A {@link DataError} names the file and the
 * first field that is missing or of the wrong type. Only the fields
 * {@link EvalResultJsonSchema} lists are checked; the rest is passed through as written.
 */
export function parseResultJson(text: string, file: string): EvalResultJson {
  const value = parseJson(text, file, `expected the output of ${JSON_OUT}`)
  if (!isPlainObject(value)) throw new DataError(`expected a JSON object from ${JSON_OUT}`, { file })
  return check(EvalResultJsonSchema, value, file, `; is this the output of ${JSON_OUT}?`) as EvalResultJson
}

/**
 * Parse and check a `--records-out` JSONL file. A UTF-8 BOM, CRLF endings and blank
 * lines are accepted; a bad line is a {@link DataError} with the file, the line number
 * and the field.
 */
export function parseRecordsJsonl(text: string, file: string): DecisionRecord[] {
  const out: DecisionRecord[] = []
  stripBom(text)
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return
      const at = { file, line: i + 1 }
      const value = parseJsonText(line, (position) => new DataError(`not valid JSON (${position}); expected one record per line from ${RECORDS_OUT}`, at), { oneLine: true })
      const parsed = DecisionRecordSchema.safeParse(value)
      if (!parsed.success) {
        const { field, message } = firstIssue(parsed.error)
        throw new DataError(`not a decision record: ${message} (expected a line of ${RECORDS_OUT})`, { ...at, ...(field ? { field } : {}) })
      }
      out.push(parsed.data)
    })
  return out
}

/** Anything with records and, optionally, a manifest fingerprint: an `EvalResult`, a parsed JSON, a records file. */
export interface Comparable {
  /** One record per labelled decision. */
  readonly records: readonly DecisionRecord[]
  /** The run's manifest; only `fingerprint` is read. Absent for a `--records-out` file. */
  readonly manifest?: { readonly fingerprint?: string | undefined } | undefined
}

/**
 * What `sceptic compare` pairs: a `--records-out` JSONL file, or a whole `EvalResult`
 * as JSON (`JSON.stringify(result)`, with its `records` and `manifest.fingerprint`). A
 * `--json-out` document has no records and is refused with a hint.
 */
export function parseComparable(text: string, file: string): Comparable {
  let whole: unknown
  try {
    whole = JSON.parse(stripBom(text))
  } catch {
    whole = undefined // not one JSON document: read it as JSONL below
  }
  if (isPlainObject(whole) && !('gold' in whole)) {
    if (!Array.isArray(whole.records))
      throw new DataError(
        `has no "records" array (a --json-out report leaves them out). Write the per-decision records beside it (\`sceptic evaluate ... --json-out X.json --records-out X.records.jsonl\`), or compare the records files themselves.`,
        { file },
      )
    const result = check(EvalResultSchema, whole, file, '; expected a whole EvalResult as JSON (with records) or a --records-out file')
    const fingerprint = result.manifest.fingerprint
    return { records: result.records, manifest: fingerprint === undefined ? undefined : { fingerprint } }
  }
  const records = parseRecordsJsonl(text, file)
  if (records.length === 0) throw new DataError('holds no records', { file })
  return { records }
}

/** `schema`'s output for `value`, or a DataError naming `file` and the first bad field. */
function check<S extends z.ZodType>(schema: S, value: unknown, file: string, hint: string): z.output<S> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const { field, message } = firstIssue(parsed.error)
  throw new DataError(`${message}${hint}`, { file, ...(field ? { field } : {}) })
}

function parseJson(text: string, file: string, expected: string): unknown {
  return parseJsonText(stripBom(text), (at) => new DataError(`not JSON (${at}); ${expected}`, { file }))
}

function stripBom(text: string): string {
  return text.replace(/^\uFEFF/, '')
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
