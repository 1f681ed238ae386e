/**
 * Stage 2 of an evaluation, scoring: build a chunk's requests, call the scorer (racing
 * the abort signal) and hold its answer to the ScoreFn contract (docs/design.md#contracts).
 * Every breach is a `ScorerError` naming the request; a call that throws fails its own
 * requests only.
 */
import { LETTERS, type Criterion } from '../decisions/schema.ts'
import { NEVER_ABORTS, raceAbort } from '../support/abort.ts'
import { EvaluationError, ScorerError } from '../support/errors.ts'
import { scaledByMax } from './renormalise.ts'
import { isMaximalSlot } from './argmax.ts'
import { isScoredOutcome, isScoreFailure, scoreFailure, type FallibleScoreFn, type ScoreFailure, type ScoreFn, type ScoreRequest } from '../scorer/contract.ts'
import { describeRequest, presented, type Job, type Plan } from './plan.ts'
import type { Settings } from './options.ts'

/** What one scorer call gave back, checked: per request a vector (with its sum) or a failure. */
export interface Scored {
  /** The scorer's vector (read, never copied), or a rescaled copy when its sum would overflow; undefined for a failure. */
  vectors: (ArrayLike<number> | undefined)[]
  /** Each vector's sum, by which it is renormalised. */
  sums: Float64Array
  failures: (ScoreFailure | undefined)[]
  flags: (readonly string[] | undefined)[]
  /** The slot the scorer stated it picked, checked to be a maximal slot; undefined when it stated none. */
  picks?: (number | undefined)[]
  /** When the call threw: the one failure every request of the call carries, and what was thrown. */
  thrown?: { failure: ScoreFailure; error: unknown }
}

/** A scored chunk: its jobs, the criteria as presented, and the checked answers. */
export interface ScoredChunk {
  readonly jobs: readonly Job[]
  readonly criteria: readonly Criterion[]
  readonly scored: Scored
}

/** Score one chunk of the plan; `firstIndex` numbers its first request in error messages. */
export async function scoreChunk(
  score: ScoreFn | FallibleScoreFn,
  plan: Plan,
  jobs: readonly Job[],
  settings: Settings,
  firstIndex: number,
): Promise<ScoredChunk> {
  const { epochs, template, signal } = settings
  const criteria = jobs.map((job) => presented(plan, job))
  const requests = jobs.map((job, i) => makeRequest(plan.rows[job.row]!.state, criteria[i]!, template, epochs > 1 ? job.epoch : undefined))
  const scored = await callScorer(score, requests, signal, (i) => describeRequest(plan, epochs, firstIndex + i, jobs[i]!))
  return { jobs, criteria, scored }
}

/**
 * A request whose `prompt` is built on first read and then kept. It is an own
 * enumerable property, so JSON.stringify and structuredClone (worker threads, HTTP)
 * still see the text; scorers that never read it (cached logits, keyword scorers)
 * do not pay for hundreds of thousands of prompt strings.
 */
export function makeRequest(state: string, criterion: Readonly<Criterion>, template: Settings['template'], epoch: number | undefined): ScoreRequest {
  let prompt: string | undefined
  const request = {
    state,
    criterion,
    get prompt() {
      return (prompt ??= template(state, criterion))
    },
  }
  // Frozen, options array and criterion included: a scorer cannot rewrite what is being evaluated.
  Object.freeze(Object.freeze(criterion).options)
  return Object.freeze(epoch === undefined ? request : Object.assign(request, { epoch }))
}

/**
 * Call the scorer and hold it to its contract; every contract breach names the request.
 * A throw (a 503 from the user's server) costs this call only: its requests fail as
 * `error`, named by the requests of this call, and the failure-rate rule decides the run.
 */
export async function callScorer(
  score: ScoreFn | FallibleScoreFn,
  requests: readonly ScoreRequest[],
  signal: AbortSignal | undefined,
  describe: (index: number) => string,
): Promise<Scored> {
  let output: unknown
  try {
    output = await raceAbort(score(requests, { signal: signal ?? NEVER_ABORTS }), signal)
  } catch (error) {
    if (error instanceof EvaluationError || (signal?.aborted && error === signal.reason)) throw error
    const span = requests.length === 1 ? describe(0) : `${describe(0)} … ${describe(requests.length - 1)}`
    const failure = scoreFailure('error', `the scorer threw on ${span}: ${(error as Error)?.message ?? String(error)}`)
    return { vectors: new Array(requests.length), sums: new Float64Array(requests.length), failures: new Array(requests.length).fill(failure), flags: [], thrown: { failure, error } }
  }
  if (!Array.isArray(output))
    throw new ScorerError(`the scorer returned ${typeOf(output)} instead of an array of ${requests.length} probability vectors`)
  if (output.length !== requests.length)
    throw new ScorerError(
      `the scorer returned ${output.length} vectors for ${requests.length} requests (first: ${describe(0)}); it must return one per request, in order`,
    )
  const scored: Scored = { vectors: new Array(output.length), sums: new Float64Array(output.length), failures: [], flags: [], picks: [] }
  for (let i = 0; i < output.length; i++) {
    let outcome: unknown = output[i]
    if (isScoreFailure(outcome)) {
      scored.failures[i] = outcome
      continue
    }
    let pick: unknown
    if (isScoredOutcome(outcome)) {
      if (outcome.flags !== undefined) scored.flags[i] = checkFlags(outcome.flags, () => describe(i))
      pick = outcome.pick
      outcome = outcome.probabilities
    }
    const sum = checkVector(outcome, requests[i]!.criterion.options.length, () => describe(i))
    if (pick !== undefined) scored.picks![i] = checkPick(pick, outcome as ArrayLike<number>, () => describe(i))
    // A sum that overflows (entries near 1.7e308) or whose inverse does (subnormals) is rescaled by the maximum first.
    const safe = Number.isFinite(sum) && Number.isFinite(1 / sum) ? { vector: outcome as ArrayLike<number>, sum } : scaledByMax(outcome as ArrayLike<number>)
    scored.sums[i] = safe.sum
    scored.vectors[i] = safe.vector
  }
  return scored
}

/**
 * Validate one vector (finite, ≥ 0, not all zero, the right length) and return its
 * sum, by which it is renormalised. The scorer's array is read, never copied or changed.
 */
function checkVector(vector: unknown, length: number, describe: () => string): number {
  if (!Array.isArray(vector) && !ArrayBuffer.isView(vector))
    throw new ScorerError(`the scorer returned ${typeOf(vector)} for ${describe()}; expected ${length} numbers`)
  const values = vector as ArrayLike<unknown>
  if (values.length !== length)
    throw new ScorerError(`the scorer returned ${values.length} values for ${describe()}, which has ${length} options`)
  let sum = 0
  for (let slot = 0; slot < length; slot++) {
    const v = values[slot]
    // A NaN would lose every comparison in the argmax and be scored silently as slot A.
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new ScorerError(
        `the scorer returned ${typeof v === 'number' ? String(v) : typeOf(v)} at slot ${LETTERS[slot]} for ${describe()}; probabilities must be finite and ≥ 0`,
      )
    sum += v
  }
  if (sum === 0) throw new ScorerError(`the scorer returned all zeros for ${describe()}; nothing to renormalise`)
  return sum
}

/** A stated pick must name a slot the vector holds a maximum at: a pick the probabilities contradict is no answer to trust. */
function checkPick(pick: unknown, vector: ArrayLike<number>, describe: () => string): number {
  if (typeof pick !== 'number' || !Number.isInteger(pick) || pick < 0 || pick >= vector.length)
    throw new ScorerError(
      `the scorer stated pick ${typeof pick === 'number' ? String(pick) : `of type ${typeOf(pick)}`} for ${describe()}; a pick must be a slot index from 0 to ${vector.length - 1}`,
    )
  if (!isMaximalSlot(vector, pick))
    throw new ScorerError(`the scorer stated pick ${LETTERS[pick]} for ${describe()}, which is not a maximal slot of its probabilities`)
  return pick
}

/** Flags must be strings: they are written to records and counted by name. */
function checkFlags(flags: unknown, describe: () => string): readonly string[] {
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === 'string'))
    throw new ScorerError(`the scorer returned flags that are not an array of strings for ${describe()}`)
  return flags
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}
