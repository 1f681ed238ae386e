/** The decision schema (one zod schema for every reader), its loader and helpers on decisions (docs/data-format.md). */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { uniqueIds } from './id.ts'
import { DataError } from '../support/errors.ts'
import { readJsonlLines, type JsonlReadOptions } from './jsonl.ts'
import { firstIssue } from './zod-issue.ts'
import { parseJsonText } from '../support/json-text.ts'

/** Option letters, in slot order. Slot 0 is "A". At most 20 options per criterion. */
export const LETTERS = 'ABCDEFGHIJKLMNOPQRST'

/** Fewest and most options a criterion may have (the letter set bounds the maximum). */
export const MIN_OPTIONS = 2
export const MAX_OPTIONS = LETTERS.length

/** One option: a stable `id` (what gold labels and aggregation use) and the `text` shown to the model. */
export const OptionSchema = z.object({
  id: z.string().min(1, 'must be a non-empty string'),
  text: z.string(),
  /**
   * Keep this option at its slot under every ordering ("None of the above", "Tie");
   * debiasing moves only the unpinned options. Default false.
   */
  pinned: z.boolean().optional().describe('Keep this option at its position under every ordering (e.g. "None of the above", "Tie"). Default false.'),
})

/** The question asked of a state: a `key` naming the criterion, an optional question, 2–20 options. */
export const CriterionSchema = z
  .object({
    key: z.string().min(1, 'must be a non-empty string'),
    question: z.string().nullish(),
    options: z
      .array(OptionSchema)
      .min(MIN_OPTIONS, `needs at least ${MIN_OPTIONS} options`)
      .max(MAX_OPTIONS, `allows at most ${MAX_OPTIONS} options (one per letter A-T)`),
  })
  .superRefine((criterion, ctx) => {
    const seen = new Set<string>()
    criterion.options.forEach((option, index) => {
      if (seen.has(option.id))
        ctx.addIssue({ code: 'custom', path: ['options', index, 'id'], message: `duplicate option id "${option.id}"` })
      seen.add(option.id)
    })
    const movable = criterion.options.filter((option) => !option.pinned).length
    if (movable < MIN_OPTIONS)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `needs at least ${MIN_OPTIONS} options that are not pinned (has ${movable}); pinned options keep their slot, so nothing would be reordered` })
  })

/**
 * One decision, as a line of a JSONL file. Keys are snake_case for interop with the
 * Python tools. A decision without `answer_id` is unlabelled: it is read, counted and
 * skipped by evaluation, never scored.
 */
export const DecisionSchema = z
  .object({
    id: z.string().nullish(),
    state: z.string(),
    criterion: CriterionSchema,
    answer_id: z.string().nullish(),
    group_id: z.string().nullish(),
  })
  .superRefine((decision, ctx) => {
    const answer = decision.answer_id
    if (answer != null && !decision.criterion.options.some((option) => option.id === answer)) {
      const ids = decision.criterion.options.map((option) => option.id).join(', ')
      ctx.addIssue({ code: 'custom', path: ['answer_id'], message: `"${answer}" is not one of the option ids (${ids})` })
    }
  })

export type Option = z.infer<typeof OptionSchema>
export type Criterion = z.infer<typeof CriterionSchema>
export type Decision = z.infer<typeof DecisionSchema>
/** A decision with a gold answer. */
export type LabelledDecision = Decision & { answer_id: string }

/** Whether a decision carries a gold answer. */
export function isLabelled(decision: Decision): decision is LabelledDecision {
  return decision.answer_id != null
}

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

/** Options for {@link groupSplit}. */
export interface GroupSplitOptions {
  /** Share of groups (not rows) to put in the eval side, in (0, 1). */
  evalFraction: number
  /** PRNG seed; the same seed gives the same split. Default 0. */
  seed?: number
}

/**
 * Split decisions so that no group is on both sides. A group is the `group_id`, or
 * the state text when there is none: rows that share evidence must not leak from
 * train into eval, or every number is inflated.
 */
export function groupSplit(
  decisions: readonly Decision[],
  { evalFraction, seed = 0 }: GroupSplitOptions,
): { train: Decision[]; eval: Decision[] } {
  if (!(evalFraction > 0 && evalFraction < 1))
    throw new DataError(`evalFraction must be between 0 and 1 (exclusive), got ${evalFraction}`)
  const groups = [...new Set(decisions.map(groupOf))].sort()
  const random = mulberry32(seed)
  // Fisher–Yates over the sorted group names: order-independent of the input.
  for (let i = groups.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[groups[i], groups[j]] = [groups[j]!, groups[i]!]
  }
  const evalCount = Math.min(groups.length - 1, Math.max(1, Math.round(groups.length * evalFraction)))
  const evalGroups = new Set(groups.slice(0, evalCount))
  const train: Decision[] = []
  const evalSide: Decision[] = []
  for (const decision of decisions) (evalGroups.has(groupOf(decision)) ? evalSide : train).push(decision)
  return { train, eval: evalSide }
}

/** The leakage unit of a decision: its `group_id`, else its state. */
export function groupOf(decision: Decision): string {
  return decision.group_id != null ? `g:${decision.group_id}` : `s:${decision.state}`
}

/** Small seeded PRNG (mulberry32): uniform in [0, 1), deterministic per seed. */
export function mulberry32(seed: number): () => number {
  // State kept as int32 (`| 0`), not uint32 (`>>> 0`): the same bits, but V8 keeps an int32
  // in a register where a uint32 above 2^31 becomes a double (about 20% slower per draw).
  let a = seed | 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `criterion.options` re-arranged so that slot `i` shows option `order[i]`. */
export function reorderCriterion(criterion: Criterion, order: readonly number[]): Criterion {
  return { ...criterion, options: order.map((index) => criterion.options[index]!) }
}

/**
 * JSON Schema (draft 2020-12) of one decision line, generated from
 * {@link DecisionSchema}, for editors and for validating data outside this library.
 * Cross-field rules (unique option ids, `answer_id` among the options) are
 * enforced by the loader only; JSON Schema cannot express them.
 */
export function decisionJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(DecisionSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'vitest-sceptic decision',
    description: 'One line of a JSONL decision file: evidence (state), a criterion with 2-20 options, and optionally the gold answer_id.',
  }
}
