/**
 * `cachedScorer(score, { identity, store })`: a scorer that answers requests it has
 * seen from the cache and passes the rest, in order and in one call, to `score`.
 * Only valid vectors are stored (failures and contract breaches pass through
 * uncached, for the evaluator to report); a hit returns the stored float64 values.
 */
import { CACHE_COUNTS, CACHE_SETTLE, type CacheCounts } from '../core/scorer/cache-counts.ts'
import { ScorerError } from '../core/support/errors.ts'
import { describeScorer } from '../core/scorer/description.ts'
import { isScoredOutcome, isScoreFailure, type FallibleScoreFn, type ScoreOutcome, type ScoreRequest } from '../core/scorer/contract.ts'
import { requestKey, scorerId, type CacheIdentity } from './key.ts'
import type { CacheEntry } from './segment.ts'
import type { CacheStore } from './store.ts'
import { checkHits, type SampledHit } from './check-hits.ts'
import { DEFAULT_CACHE_VERIFY } from './config.ts'
import { Reservoir, verifyPlan } from './verify.ts'

/** Options of {@link cachedScorer}. */
export interface CachedScorerOptions {
  /** What decides the scorer's output (see {@link CacheIdentity}). */
  readonly identity: CacheIdentity
  /** The opened cache. */
  readonly store: CacheStore
  /**
   * Most uncached requests per scorer call (cut only between decisions), each slice
   * stored as soon as it is scored: a killed run loses at most the slice in flight and
   * the one being fsynced. Default 256.
   */
  readonly writeEvery?: number
  /**
   * Hits of a remote scorer re-checked live per evaluation (docs/cache.md, "Remote scorers"):
   * a seeded uniform sample of all the run's hits, checked once its scoring is over. 0 opts out.
   * Default {@link DEFAULT_CACHE_VERIFY} (8).
   */
  readonly verify?: number
}

/** Default {@link CachedScorerOptions.writeEvery}. */
export const DEFAULT_WRITE_EVERY = 256

/**
 * A caching scorer: a {@link FallibleScoreFn} with running counts under {@link CACHE_COUNTS},
 * described as the scorer it wraps (its `description`, else its name, else `(injected scorer)`).
 */
export type CachedScorer = FallibleScoreFn & { readonly [CACHE_COUNTS]: CacheCounts; readonly description: string }

/** Wrap `score` with the cache. Extra call arguments (an AbortSignal) are passed through. */
export function cachedScorer(score: FallibleScoreFn, options: CachedScorerOptions): CachedScorer {
  const { identity, store, writeEvery = DEFAULT_WRITE_EVERY, verify = DEFAULT_CACHE_VERIFY } = options
  const plan = verifyPlan(identity, verify)
  const counts: CacheCounts = {
    hits: 0,
    misses: 0,
    ...(plan === 'check' ? { verified: 0 } : plan === 'sampled' || plan === 'off' ? { verifySkipped: plan } : {}),
  }
  // Seeded: the same run re-checks the same hits. Any hit, of the first call or the last, may be drawn.
  const sample = new Reservoir<SampledHit>(plan === 'check' ? verify : 0, 0x5ce971c)
  let id: Promise<string> | undefined
  const resolveId = () =>
    (id ??= scorerId(identity, store.dir, store.mode === 'read-write').then((value) => {
      store.registerScorer(value, { kind: identity.kind, label: identity.label })
      return value
    }))

  const cached = async (requests: readonly ScoreRequest[], ...rest: unknown[]): Promise<readonly ScoreOutcome[]> => {
    const scorer = await resolveId()
    const keys = requests.map((request) => requestKey(scorer, request))
    const out: ScoreOutcome[] = new Array(requests.length)
    const missing: number[] = []
    keys.forEach((key, i) => {
      const entry = store.get(key)
      if (entry && entry.vector.length === requests[i]!.criterion.options.length) out[i] = fromEntry(entry)
      else missing.push(i)
    })
    counts.hits += requests.length - missing.length
    counts.misses += missing.length
    if (plan === 'check') {
      let m = 0
      for (let i = 0; i < requests.length; i++) {
        if (missing[m] === i) m++
        else sample.offer({ request: requests[i]!, cached: out[i]! })
      }
    }
    if (missing.length === 0) return out
    // Misses go to the scorer in slices of whole decisions, each stored as soon as it is
    // scored, so a run killed mid-call loses at most the slice in flight and the one still
    // being fsynced (docs/cache.md, "Resume").
    for (const slice of slices(requests, missing, writeEvery)) {
      // A call with nothing cached passes the scorer's output back untouched, so its contract errors read as without a cache.
      const whole = slice.length === requests.length
      const scored = await (score as (r: readonly ScoreRequest[], ...more: unknown[]) => unknown)(whole ? requests : slice.map((i) => requests[i]!), ...rest)
      if (!Array.isArray(scored) || scored.length !== slice.length) {
        if (whole) return scored as readonly ScoreOutcome[]
        await store.flush()
        throw new ScorerError(
          `the scorer returned ${Array.isArray(scored) ? `${scored.length} vectors` : typeof scored} for ${slice.length} requests (the uncached part of a call of ${requests.length}); it must return one per request, in order`,
        )
      }
      const fresh: CacheEntry[] = []
      slice.forEach((i, k) => {
        const outcome = scored[k] as ScoreOutcome
        out[i] = outcome
        const entry = toEntry(keys[i]!, scorer, outcome, requests[i]!.criterion.options.length)
        if (entry) fresh.push(entry)
      })
      // Not awaited: the next slice is scored while this one is written and fsynced.
      void store.put(fresh)
    }
    await store.flush()
    return out
  }
  // Once the run's scoring is over: the sampled hits, scored live, must still match.
  const settle = async (...rest: unknown[]): Promise<void> => {
    const hits = sample.take()
    if (plan === 'check') counts.verified! += await checkHits(score, hits, identity.label, rest)
  }
  // The cache is transparent: the run names the wrapped scorer, not this wrapper.
  return Object.assign(cached, { [CACHE_COUNTS]: counts, [CACHE_SETTLE]: settle, description: describeScorer(score) }) as CachedScorer
}

/**
 * The missing request indices in slices of about `size`, each cut only where a new
 * decision starts (a different state or criterion key), so a decision's orderings and
 * epochs stay in one call (prefix sharing needs them together).
 */
export function slices(requests: readonly ScoreRequest[], missing: readonly number[], size: number): number[][] {
  const out: number[][] = []
  let current: number[] = []
  for (const i of missing) {
    const previous = current.length > 0 ? requests[current[current.length - 1]!]! : undefined
    const request = requests[i]!
    const boundary = !previous || previous.state !== request.state || previous.criterion.key !== request.criterion.key
    if (current.length >= size && boundary) {
      out.push(current)
      current = []
    }
    current.push(i)
  }
  if (current.length > 0) out.push(current)
  return out
}

/** A stored entry as a scorer outcome: a plain array, with flags when it had any. */
function fromEntry(entry: CacheEntry): ScoreOutcome {
  const probabilities = Array.from(entry.vector)
  return entry.flags.length > 0 ? { probabilities, flags: [...entry.flags] } : probabilities
}

/** An entry for a valid outcome (finite, ≥ 0, not all zero, the right length); `undefined` for anything else. */
function toEntry(key: string, scorer: string, outcome: ScoreOutcome, length: number): CacheEntry | undefined {
  if (isScoreFailure(outcome)) return undefined
  const flagged = isScoredOutcome(outcome)
  // An entry holds a vector and flags; a stated pick it cannot hold is re-asked, never dropped.
  if (flagged && outcome.pick !== undefined) return undefined
  const values = (flagged ? outcome.probabilities : outcome) as unknown
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) return undefined
  const list = values as ArrayLike<unknown>
  if (list.length !== length) return undefined
  const vector = new Float64Array(length)
  let sum = 0
  for (let i = 0; i < length; i++) {
    const v = list[i]
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return undefined
    vector[i] = v
    sum += v
  }
  if (sum === 0) return undefined
  const flags = flagged ? (outcome.flags ?? []) : []
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === 'string')) return undefined
  return { key, scorer, vector, flags }
}
