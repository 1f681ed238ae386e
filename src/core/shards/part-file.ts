/**
 * What one shard of a run leaves for the merge (docs/scaling-out.md): its decisions and
 * every scorer answer, keyed by request. The merge replays them through
 * {@link evaluateWithScorer}, so a merged result equals an unsharded one by construction.
 */
import { hash } from 'node:crypto'
import { z } from 'zod'
import { CACHE_COUNTS, CACHE_SETTLE, type CacheCounts } from '../scorer/cache-counts.ts'
import { fingerprint } from '../decisions/fingerprint.ts'
import { isLabelled, type Decision } from '../decisions/schema.ts'
import { validateDecision } from '../decisions/load.ts'
import { DataError, ScorerError } from '../support/errors.ts'
import type { AverageMode, DebiasMode } from '../requests/orderings.ts'
import type { FallibleScoreFn, ScoreFn, ScoreOutcome, ScoreRequest } from '../scorer/contract.ts'
import { shardOf, shardKey, type ShardSpec } from './spec.ts'
import { parseJsonText } from '../support/json-text.ts'
import { EVALUATE_FIELDS, type EvaluateSettings } from '../evaluate/settings.ts'
import { resolveReducer } from '../evaluate/reducers.ts'
import { manifestSettings, mergeManifests } from './manifest-merge.ts'

/** The `format` tag of a part file's header line. */
export const PART_FORMAT = 'vitest-sceptic-shard-part'

/** The settings that must be equal in every part (they decide the merged numbers): a view of the evaluation's. */
export const PartSettingsSchema = z.strictObject({
  debias: EVALUATE_FIELDS.debias,
  seed: EVALUATE_FIELDS.seed,
  epochs: EVALUATE_FIELDS.epochs,
  /** The epoch reducer's name. */
  reducer: z.string(),
  average: EVALUATE_FIELDS.average,
  storePrompts: EVALUATE_FIELDS.storePrompts,
  /** `false` when the parts ran without statistics (`--no-statistics`); absent: with them. */
  statistics: z.literal(false).optional(),
})
export type PartSettings = z.infer<typeof PartSettingsSchema>

/** The part-file view of a run's settings. */
export function partSettingsOf(settings: EvaluateSettings): PartSettings {
  const { debias, seed, epochs, average, storePrompts } = settings
  return { debias, seed, epochs, reducer: resolveReducer(settings.reducer).name, average, storePrompts, ...(settings.statistics === false ? { statistics: false as const } : {}) }
}

/** Line 1 of a part file. */
export const PartHeaderSchema = z.strictObject({
  /** Always {@link PART_FORMAT}. */
  format: z.literal(PART_FORMAT),
  /** Format version, 1. */
  version: z.literal(1),
  /** Which part this is. */
  shard: z.strictObject({ index: z.number().int().min(1), count: z.number().int().min(1) }),
  /** Fingerprint of the whole data file's labelled rows (what an unsharded run reports). */
  fingerprint: z.string(),
  /** Rows in the whole data file, labelled or not. */
  rows: z.number().int().min(0),
  /** Run settings; equal across parts. */
  settings: PartSettingsSchema,
  /** The scorer's description (the report's model line); equal across parts. */
  scorer: z.string(),
  /** The scorer's identity as the cache key digests it (its module's or model's file digests, its settings); equal across parts. */
  scorerId: z.string(),
  /** The scorer's manifest entries (`endpoints` counts are summed over parts, the rest must be equal). */
  manifest: z.record(z.string(), z.unknown()),
  /** What the score cache did in this part, or null without a cache. */
  cache: z.strictObject({ hits: z.number(), misses: z.number() }).nullable(),
  /** Records the part wrote to its records file. */
  records: z.number().int().min(0),
})
export type PartHeader = z.infer<typeof PartHeaderSchema>

/** One decision of the part, with its 0-based position in the data file. */
export const RowLineSchema = z.strictObject({ position: z.number().int().min(0), decision: z.unknown() })
/** One scorer answer: the request key and the outcome (vector, failure or flagged vector). */
export const AnswerLineSchema = z.strictObject({
  key: z.string(),
  outcome: z.union([
    z.array(z.number()),
    z.strictObject({ failure: z.string(), message: z.string() }),
    z.strictObject({ probabilities: z.array(z.number()), pick: z.number().int().min(0).optional(), flags: z.array(z.string()).optional() }),
  ]),
})

/** A parsed part file. */
export interface ShardPart {
  /** Where it was read from, for messages. */
  readonly file: string
  readonly header: PartHeader
  /** Its decisions with their positions in the data file. */
  readonly rows: readonly { position: number; decision: Decision }[]
  /** Scorer answers in the order they were given. */
  readonly answers: readonly { key: string; outcome: ScoreOutcome }[]
}

/**
 * The replay key of a request: sha256 over the sha256 of its state, its criterion as
 * presented and its epoch, each length-prefixed (no escaping ambiguity), 32 hex digits.
 * `stateDigests` memoises the state's digest (a decision's orderings share its state).
 */
export function replayKey(request: ScoreRequest, stateDigests?: Map<string, string>): string {
  let state = stateDigests?.get(request.state)
  if (state === undefined) {
    // One-shot hash: at 10^5 decisions × n orderings the per-call setup of createHash showed in profiles.
    state = hash('sha256', request.state, 'hex')
    stateDigests?.set(request.state, state)
  }
  const fields = [state, JSON.stringify(request.criterion), String(request.epoch ?? 0)]
  let text = ''
  for (const field of fields) text += `${field.length}:${field}`
  return hash('sha256', text, 'hex').slice(0, 32)
}

/**
 * `score` with every answer kept, in call order, for a part file. Cache counts of a
 * caching `score` stay readable (the evaluator's manifest reports them).
 */
export function recordingScorer(score: ScoreFn | FallibleScoreFn): {
  score: FallibleScoreFn
  answers: { key: string; outcome: ScoreOutcome }[]
} {
  const answers: { key: string; outcome: ScoreOutcome }[] = []
  const digests = new Map<string, string>()
  const recording: FallibleScoreFn = async (requests, context) => {
    const out = await (score as FallibleScoreFn)(requests, context)
    if (Array.isArray(out) && out.length === requests.length)
      out.forEach((outcome, i) => answers.push({ key: replayKey(requests[i]!, digests), outcome: plainOutcome(outcome) }))
    return out
  }
  Object.defineProperty(recording, CACHE_COUNTS, { get: () => (score as { [CACHE_COUNTS]?: CacheCounts })[CACHE_COUNTS] })
  Object.defineProperty(recording, CACHE_SETTLE, { get: () => (score as { [CACHE_SETTLE]?: unknown })[CACHE_SETTLE] })
  return { score: recording, answers }
}

/** A typed array or flagged score as plain JSON (doubles round-trip exactly through JSON). */
function plainOutcome(outcome: unknown): ScoreOutcome {
  if (ArrayBuffer.isView(outcome)) return Array.from(outcome as unknown as ArrayLike<number>)
  const flagged = outcome as { probabilities?: ArrayLike<number>; pick?: number; flags?: string[] }
  if (flagged && typeof flagged === 'object' && !Array.isArray(outcome) && flagged.probabilities)
    return {
      probabilities: Array.from(flagged.probabilities),
      ...(flagged.pick !== undefined ? { pick: flagged.pick } : {}),
      flags: [...(flagged.flags ?? [])],
    }
  return outcome as ScoreOutcome
}

/** What {@link partFileText} needs. */
export interface PartContent {
  readonly shard: ShardSpec
  readonly fingerprint: string
  readonly rows: number
  readonly settings: PartSettings
  readonly scorer: string
  readonly scorerId: string
  readonly manifest: Record<string, unknown>
  readonly cache: CacheCounts | undefined
  readonly records: number
  readonly decisions: readonly { position: number; decision: Decision }[]
  readonly answers: readonly { key: string; outcome: ScoreOutcome }[]
}

/** The part file's JSONL text: header, one line per decision, one line per answer. */
export function partFileText(part: PartContent): string {
  const header: PartHeader = {
    format: PART_FORMAT,
    version: 1,
    shard: { index: part.shard.index, count: part.shard.count },
    fingerprint: part.fingerprint,
    rows: part.rows,
    settings: part.settings,
    scorer: part.scorer,
    scorerId: part.scorerId,
    manifest: part.manifest,
    // Only the counts the merge sums (a remote scorer's re-check count stays with its shard's run).
    cache: part.cache ? { hits: part.cache.hits, misses: part.cache.misses } : null,
    records: part.records,
  }
  const lines = [JSON.stringify(header)]
  for (const row of part.decisions) lines.push(JSON.stringify(row))
  for (const answer of part.answers) lines.push(JSON.stringify(answer))
  return lines.join('\n') + '\n'
}

/** Parse a part file; any bad line is a DataError naming file, line and field. */
export function parsePartFile(text: string, file: string): ShardPart {
  const lines = text.split('\n')
  let header: PartHeader | undefined
  const rows: { position: number; decision: Decision }[] = []
  const answers: { key: string; outcome: ScoreOutcome }[] = []
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '')
    if (line.trim() === '') return
    const value = parseJsonText(line, (at) => new DataError(`not valid JSON (${at})`, { file, line: i + 1 }), { oneLine: true })
    // Answer and row lines are the whole file but one: their common shapes are checked by
    // hand (accepting only what the schemas accept); anything else goes to zod for its message.
    if (header !== undefined) {
      if (isPlainAnswer(value)) return void answers.push(value)
      if (isPlainRow(value)) return void rows.push({ position: value.position, decision: validateDecision(value.decision, { file, line: i + 1 }) })
    }
    const schema = header === undefined ? PartHeaderSchema : (value as { key?: unknown })?.key !== undefined ? AnswerLineSchema : RowLineSchema
    const parsed = schema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      const hint = header === undefined ? ' (not a shard part file: write one with `sceptic evaluate --shard i/n --records-out FILE`)' : ''
      throw new DataError(`${issue.message}${hint}`, { file, line: i + 1, field: issue.path.join('.') || '(line)' })
    }
    if (header === undefined) header = parsed.data as PartHeader
    else if ('key' in (parsed.data as object)) answers.push(parsed.data as { key: string; outcome: ScoreOutcome })
    else {
      const row = parsed.data as { position: number; decision: unknown }
      rows.push({ position: row.position, decision: validateDecision(row.decision, { file, line: i + 1 }) })
    }
  })
  if (!header) throw new DataError('is empty: expected a shard part file', { file })
  return { file, header, rows, answers }
}

/** `{ key: string, outcome: number[] }` and nothing else: what {@link AnswerLineSchema} accepts for a plain vector. */
function isPlainAnswer(value: unknown): value is { key: string; outcome: number[] } {
  if (value === null || typeof value !== 'object') return false
  const { key, outcome } = value as { key?: unknown; outcome?: unknown }
  if (typeof key !== 'string' || !Array.isArray(outcome) || Object.keys(value).length !== 2) return false
  for (const v of outcome) if (typeof v !== 'number') return false
  return true
}

/** `{ position: safe integer ≥ 0, decision }` and nothing else: what {@link RowLineSchema} accepts. */
function isPlainRow(value: unknown): value is { position: number; decision: unknown } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const position = (value as { position?: unknown }).position
  return (
    Object.keys(value).length === 2 &&
    Object.hasOwn(value, 'position') &&
    Object.hasOwn(value, 'decision') &&
    Number.isSafeInteger(position) &&
    (position as number) >= 0
  )
}

/** The merged run's inputs: the data file's decisions in order, a replaying scorer, the settings. */
export interface Reassembled {
  readonly decisions: Decision[]
  readonly score: FallibleScoreFn
  readonly settings: PartSettings & { debias: DebiasMode; average: AverageMode }
  readonly scorer: string
  readonly manifest: Record<string, unknown>
  readonly shards: number
}

/**
 * Check that `parts` are the n parts of one run (same data fingerprint, settings and
 * scorer; every index once; no decision twice; every row of the file present) and
 * reassemble the data and a scorer that answers each request with the recorded outcome.
 */
export function reassemble(parts: readonly ShardPart[]): Reassembled {
  if (parts.length === 0) throw new DataError('no part files given')
  const first = parts[0]!
  const same = (label: string, pick: (p: ShardPart) => unknown) => {
    for (const part of parts.slice(1))
      if (JSON.stringify(pick(part)) !== JSON.stringify(pick(first)))
        throw new DataError(`its ${label} ${JSON.stringify(pick(part))} differs from ${first.file}'s ${JSON.stringify(pick(first))}: these parts are not from one run`, {
          file: part.file,
        })
  }
  same('data fingerprint', (p) => p.header.fingerprint)
  same('shard count', (p) => p.header.shard.count)
  same('row count', (p) => p.header.rows)
  same('settings', (p) => p.header.settings)
  same('scorer', (p) => p.header.scorer)
  same('scorer identity', (p) => p.header.scorerId)
  same('manifest', (p) => manifestSettings(p.header.manifest))
  const count = first.header.shard.count
  const byIndex = new Map<number, ShardPart>()
  for (const part of parts) {
    const other = byIndex.get(part.header.shard.index)
    if (other) throw new DataError(`is shard ${part.header.shard.index}/${count} again (already given as ${other.file})`, { file: part.file })
    byIndex.set(part.header.shard.index, part)
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i))
  if (missing.length > 0) throw new DataError(`shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: merge needs every part of the run`)

  const ordered = [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i)!)
  const decisions = new Array<Decision | undefined>(first.header.rows)
  const owner = new Map<string, string>()
  for (const part of ordered)
    for (const { position, decision } of part.rows) {
      if (position >= decisions.length || decisions[position] !== undefined)
        throw new DataError(`row ${position + 1} of the data file is in more than one part (or past its ${decisions.length} rows)`, { file: part.file })
      if (decision.id != null && isLabelled(decision)) {
        const seen = owner.get(decision.id)
        if (seen !== undefined) throw new DataError(`decision id ${JSON.stringify(decision.id)} is also in ${seen}: parts overlap`, { file: part.file })
        owner.set(decision.id, part.file)
      }
      decisions[position] = decision
    }
  const absent = decisions.findIndex((d) => d === undefined)
  if (absent >= 0) throw new DataError(`row ${absent + 1} of the data file is in no part: the parts do not cover the data`)
  checkRowsMatchHeaders(ordered, decisions as Decision[])

  // A request's recorded answers in order: the next one in `head`, later ones (a sampling
  // scorer's repeats) in `later`; the last answer stays for any further identical request.
  // Most keys have one answer, so no array per key (10^5 decisions × n orderings of them).
  const head = new Map<string, ScoreOutcome>()
  const later = new Map<string, ScoreOutcome[]>()
  for (const part of ordered)
    for (const { key, outcome } of part.answers) {
      if (!head.has(key)) head.set(key, outcome)
      else {
        const queue = later.get(key)
        if (queue) queue.push(outcome)
        else later.set(key, [outcome])
      }
    }
  const counts: CacheCounts | undefined = ordered.every((p) => p.header.cache)
    ? ordered.reduce((sum, p) => ({ hits: sum.hits + p.header.cache!.hits, misses: sum.misses + p.header.cache!.misses }), { hits: 0, misses: 0 })
    : undefined
  // The evaluator reads cache counts before the first call and after the last: report the parts' sums.
  const live: CacheCounts = { hits: 0, misses: 0 }
  const digests = new Map<string, string>()
  const score: FallibleScoreFn = (requests) => {
    if (counts) Object.assign(live, counts)
    return requests.map((request) => {
      const key = replayKey(request, digests)
      const outcome = head.get(key)
      if (outcome === undefined)
        throw new ScorerError(`no part holds an answer for a request of criterion "${request.criterion.key}": the parts were not written by this version from one run`)
      const queue = later.get(key)
      if (queue && queue.length > 0) head.set(key, queue.shift()!)
      return outcome
    })
  }
  if (counts) Object.defineProperty(score, CACHE_COUNTS, { value: live })
  return {
    decisions: decisions as Decision[],
    score,
    settings: first.header.settings as Reassembled['settings'],
    scorer: first.header.scorer,
    manifest: mergeManifests(ordered.map((p) => ({ file: p.file, shard: p.header.shard, manifest: p.header.manifest }))),
    shards: count,
  }
}

/**
 * The rows the parts hold must be the ones their headers describe: each in the part its
 * shard index selects, and together the data whose fingerprint every header records. A row
 * edited in a part file (a changed gold, state or option) is refused, not merged.
 */
function checkRowsMatchHeaders(parts: readonly ShardPart[], decisions: readonly Decision[]): void {
  for (const part of parts) {
    const { index, count } = part.header.shard
    for (const { position, decision } of part.rows) {
      const owner = shardOf(shardKey(decision, position), count)
      if (owner !== index)
        throw new DataError(`holds row ${position + 1} of the data file, which shard ${owner}/${count} scores, not ${index}/${count}: its rows do not match its header`, {
          file: part.file,
        })
    }
  }
  const recomputed = fingerprint(decisions.filter(isLabelled))
  if (recomputed !== parts[0]!.header.fingerprint)
    throw new DataError(
      `the rows of the ${parts.length} part${parts.length === 1 ? '' : 's'} (${parts.map((p) => p.file).join(', ')}) have the data fingerprint ${recomputed}, but their headers record ${parts[0]!.header.fingerprint}: a part's rows were changed after it was written`,
    )
}
