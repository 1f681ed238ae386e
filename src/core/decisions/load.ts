/** Reading decisions: JSONL text and files, validated and frozen, ids checked (docs/data-format.md). */
import { DataError } from '../support/errors.ts'
import { parseJsonText } from '../support/json-text.ts'
import { uniqueIds } from './id.ts'
import { type JsonlReadOptions, readJsonlLines } from './jsonl.ts'
import { type Decision, DecisionSchema, isLabelled } from './schema.ts'
import { firstIssue } from './zod-issue.ts'

/**
 * Parse JSONL text into decisions. Blank lines, a UTF-8 BOM and CRLF endings are
 * accepted; anything else that is not a valid decision (or that repeats an earlier
 * decision's `id`, or gives a labelled row's implicit id: {@link uniqueIds}) is a {@link DataError} naming `source:line` and the field.
 */
export function parseDecisions(text: string, source = '<inline>'): Decision[] {
  const ids = uniqueIds()
  const decisions: Decision[] = []
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, index) => {
      const decision = parseDecisionLine(raw, { file: source, line: index + 1 })
      if (decision) decisions.push(checkId(ids, decision, { file: source, line: index + 1 }))
    })
  return decisions
}

/** One decision line as read from a file: the validated decision, its line number and its original text. */
export interface DecisionLine {
  /** The validated (frozen) decision. */
  readonly decision: Decision
  /** 1-based line number in the file. */
  readonly line: number
  /** The line's text as written (no line ending). */
  readonly text: string
}

/**
 * Read and validate a JSONL decision file, keeping each line's text (for tools that
 * rewrite files, like `split`). Strict UTF-8, unique ids, streaming above 512 MiB:
 * see {@link readJsonlLines}.
 */
export async function loadDecisionLines(path: string, options: JsonlReadOptions = {}): Promise<DecisionLine[]> {
  const ids = uniqueIds()
  const out: DecisionLine[] = []
  for await (const { line, text } of readJsonlLines(path, options)) {
    const decision = parseDecisionLine(text, { file: path, line })
    if (decision) out.push({ decision: checkId(ids, decision, { file: path, line }), line, text })
  }
  return out
}

/** Read and validate a JSONL decision file. */
export async function loadDecisions(path: string, options: JsonlReadOptions = {}): Promise<Decision[]> {
  return (await loadDecisionLines(path, options)).map((entry) => entry.decision)
}

/** A line's decision, `undefined` for a blank line; bad JSON or a bad decision is a DataError at `location`. */
function parseDecisionLine(raw: string, location: { file: string; line: number }): Decision | undefined {
  if (raw.trim() === '') return undefined
  const json = parseJsonText(raw, (at) => new DataError(`not valid JSON (${at}). Each line must hold one JSON object.`, location), { oneLine: true })
  return validateDecision(json, location)
}

/** Decisions this module validated (and froze): evaluation need not check them again. */
const validated = new WeakSet<object>()

/** Whether `value` is a decision returned by {@link validateDecision} (frozen, so unchanged since). */
export function isValidatedDecision(value: unknown): value is Decision {
  return typeof value === 'object' && value !== null && validated.has(value)
}

/**
 * Validate one decision object (an array element, a parsed line) against
 * {@link DecisionSchema}. Returns a deep-frozen copy (unknown keys dropped): no
 * scorer or caller can change a decision after it was checked.
 */
export function validateDecision(value: unknown, location: { file?: string; line?: number } = {}): Decision {
  if (isValidatedDecision(value)) return value
  const parsed = DecisionSchema.safeParse(value)
  if (parsed.success) return freezeDecision(parsed.data)
  // zod says "Invalid input: expected string, received undefined"; say what to do instead.
  const { field, message } = firstIssue(parsed.error)
  throw new DataError(message, { ...location, ...(field ? { field } : {}) })
}

/** Validate an in-memory array, naming the element index as the "line"; ids must be unique as in a file. */
export function validateDecisions(values: readonly unknown[], source = '<array>'): Decision[] {
  if (!Array.isArray(values)) throw new DataError(`decisions must be an array, got ${values === null ? 'null' : typeof values}`, { file: source })
  const ids = uniqueIds()
  return values.map((value, index) => checkId(ids, validateDecision(value, { file: source, line: index + 1 }), { file: source, line: index + 1 }))
}

/** `decision` after the set's id rule ({@link uniqueIds}) accepted it. */
function checkId(ids: ReturnType<typeof uniqueIds>, decision: Decision, location: { file: string; line: number }): Decision {
  ids.check(decision.id, isLabelled(decision), location)
  return decision
}

function freezeDecision(decision: Decision): Decision {
  for (const option of decision.criterion.options) Object.freeze(option)
  Object.freeze(decision.criterion.options)
  Object.freeze(decision.criterion)
  validated.add(Object.freeze(decision))
  return decision
}
