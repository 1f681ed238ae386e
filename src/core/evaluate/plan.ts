/**
 * Stage 1 of an evaluation, the plan: which labelled decisions are scored, under which
 * orderings, in which chunks, and (under `pride`) which seeded sample gets every rotation.
 * Pure: nothing here calls the scorer.
 */
import { isLabelled, reorderCriterion, type Criterion, type Decision, type LabelledDecision } from '../decisions/schema.ts'
import { mulberry32 } from '../math/random.ts'
import { decisionId } from '../decisions/id.ts'
import { ConfigError, DataError } from '../support/errors.ts'
import { thousands } from '../support/thousands.ts'
import { orderings, type DebiasMode, type Ordering } from '../requests/orderings.ts'
import { pinnedSlots } from '../metrics/robustness.ts'
import { MAX_EPOCH_VALUES, type Settings } from './options.ts'

/** One request to make: the plan is built up front, the request text per chunk. */
export interface Job {
  /** Index of the decision among the labelled rows. */
  readonly row: number
  /** Index of the ordering in the row's ordering set. */
  readonly o: number
  /** 0-based epoch. */
  readonly epoch: number
}

/** What will be scored. */
export interface Plan {
  /** The labelled decisions, input order. */
  readonly rows: readonly LabelledDecision[]
  /** Unlabelled decisions skipped. */
  readonly skipped: number
  /** Under `pride`, the rows scored under every rotation; otherwise null. */
  readonly sampled: ReadonlySet<number> | null
  /** Each row's orderings (sets are shared between rows of one shape). */
  readonly orderings: readonly (readonly Ordering[])[]
  /** Requests for the decisions themselves: orderings × epochs summed over rows (content-free requests excluded). */
  readonly requestsTotal: number
  /** The order rows are scored in: under `pride` the sample first, so its prior is known before the rest is aggregated. */
  readonly rowOrder: readonly number[]
}

/** A chunk of whole decisions' requests, one scorer call. */
export interface Chunk {
  readonly jobs: readonly Job[]
  /** The chunk holds pride-sampled rows (it is held until the slot prior is estimated). */
  readonly inSample: boolean
  /** Rows planned so far, this chunk included. */
  readonly rowsDone: number
}

/**
 * Keep the labelled decisions (warning once about the skipped ones), draw the pride
 * sample and give each row its orderings. Throws a `DataError` when nothing is labelled.
 */
export function planEvaluation(decisions: readonly Decision[], settings: Settings, warn: (message: string) => void): Plan {
  const { debias, epochs } = settings
  const rows = decisions.filter(isLabelled)
  const skipped = decisions.length - rows.length
  if (skipped > 0) warn(`vitest-sceptic: skipping ${skipped} unlabelled decision(s): there is nothing to score them against.`)
  if (rows.length === 0)
    throw new DataError(
      'none of the decisions given has an answer_id, so there is nothing to score against. Evaluation needs a labelled set.',
    )

  // pride: a seeded sample gets every rotation (to estimate the slot prior); the rest one ordering.
  const sampled = debias === 'pride' ? prideSample(rows, settings.prideFraction, settings.seed) : null

  // Orderings depend only on the option count (and, under pride, on being sampled); compute each set once.
  const orderingsByCount = new Map<string, Ordering[]>()
  const sets = rows.map((row, r) => {
    const k = row.criterion.options.length
    const mode: DebiasMode = sampled && !sampled.has(r) ? 'none' : debias
    const pinned = pinnedSlots(row.criterion)
    const key = `${k}:${mode}:${pinned.join(',')}`
    let set = orderingsByCount.get(key)
    if (!set) orderingsByCount.set(key, (set = orderings(k, mode, pinned)))
    return set
  })
  if (epochs > 1) {
    // The aggregate keeps every epoch's totals and picks until the end: refuse what memory cannot hold.
    let held = 0
    rows.forEach((row, r) => (held += (row.criterion.options.length + sets[r]!.length) * epochs))
    if (held > MAX_EPOCH_VALUES)
      throw new ConfigError(
        `epochs ${epochs} over ${thousands(rows.length)} decisions would hold ${thousands(held)} per-epoch values (options and orderings times epochs), over the ${thousands(MAX_EPOCH_VALUES)} one run may hold; use fewer epochs or split the data (sceptic evaluate --shard)`,
      )
  }
  const all = rows.map((_, r) => r)
  const rowOrder = sampled ? [...[...sampled].sort((a, b) => a - b), ...all.filter((r) => !sampled.has(r))] : all
  return { rows, skipped, sampled, orderings: sets, requestsTotal: sets.reduce((sum, set) => sum + set.length, 0) * epochs, rowOrder }
}

/**
 * The plan's requests in chunks of whole decisions (a scorer sees all orderings and
 * epochs of a decision together), at most `chunkSize` requests unless one decision needs
 * more, and at most `maxRows` decisions; a chunk never mixes pride-sampled and other rows.
 */
export function* chunks(plan: Plan, epochs: number, chunkSize: number, maxRows = Infinity): Generator<Chunk> {
  const { rowOrder, orderings: sets, sampled } = plan
  const perRow = (r: number) => sets[r]!.length * epochs
  const inSample = (index: number) => sampled?.has(rowOrder[index]!) ?? false
  let next = 0
  while (next < rowOrder.length) {
    const jobs: Job[] = []
    const phase = inSample(next)
    const first = next
    do {
      const row = rowOrder[next]!
      for (let o = 0; o < sets[row]!.length; o++) for (let epoch = 0; epoch < epochs; epoch++) jobs.push({ row, o, epoch })
      next++
    } while (next < rowOrder.length && next - first < maxRows && inSample(next) === phase && jobs.length + perRow(rowOrder[next]!) <= chunkSize)
    yield { jobs, inSample: phase, rowsDone: next }
  }
}

/** The criterion as presented by a job's ordering. */
export function presented(plan: Plan, job: Job): Criterion {
  return reorderCriterion(plan.rows[job.row]!.criterion, plan.orderings[job.row]![job.o]!)
}

/** How an error names request `index`: decision id, criterion, ordering and epoch. */
export function describeRequest(plan: Plan, epochs: number, index: number, job: Job): string {
  const row = plan.rows[job.row]!
  const count = plan.orderings[job.row]!.length
  const epoch = epochs > 1 ? `, epoch ${job.epoch + 1} of ${epochs}` : ''
  return `request ${index} (decision ${JSON.stringify(decisionId(row, job.row))}, criterion "${row.criterion.key}", ordering ${job.o + 1} of ${count}${epoch})`
}

/**
 * The decisions `pride` scores under every rotation: per option count, the first
 * `max(1, round(fraction·N_k))` of a seeded shuffle (the prior is one vector per
 * slot count, so each option count needs its own sample).
 */
export function prideSample(rows: readonly LabelledDecision[], fraction: number, seed: number): Set<number> {
  const byCount = new Map<number, number[]>()
  rows.forEach((row, r) => {
    const k = row.criterion.options.length
    const members = byCount.get(k)
    if (members) members.push(r)
    else byCount.set(k, [r])
  })
  const random = mulberry32(seed)
  const chosen = new Set<number>()
  for (const k of [...byCount.keys()].sort((a, b) => a - b)) {
    const members = byCount.get(k)!
    for (let i = members.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[members[i], members[j]] = [members[j]!, members[i]!]
    }
    for (const r of members.slice(0, Math.max(1, Math.round(fraction * members.length)))) chosen.add(r)
  }
  return chosen
}
