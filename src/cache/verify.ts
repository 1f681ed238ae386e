/**
 * The live spot-check of a remote scorer's cache hits (docs/cache.md, "Remote scorers:
 * hits re-checked live"): a server can load new weights under the same model name, which
 * no key can see, so a few sampled hits are scored again after the run and must match.
 */
import { mulberry32 } from '../core/math/random.ts'
import { ScorerError } from '../core/support/errors.ts'
import { isScoredOutcome, isScoreFailure, type ScoreFailure, type ScoreOutcome } from '../core/scorer/contract.ts'
import type { CacheIdentity } from './key.ts'
import { largest } from '../core/support/spreadless.ts'

/**
 * Largest |Δp| between a cached and a live vector (each normalised to sum 1) still counted
 * equal. Servers batch requests differently from call to call and their kernels are not
 * batch-invariant, so the same prompt's log-probs move slightly between calls; new weights
 * move an answer's probabilities by far more. 0.02 tolerates that jitter and catches any
 * change large enough to flip a decision whose margin is above 2 points. The argmax letter is
 * not compared on its own: a flip inside the tolerance is a near-tie moved by jitter.
 */
export const VERIFY_TOLERANCE = 0.02

/** What the cache does with a scorer's hits: re-check them, or why not. */
export type VerifyPlan = 'check' | 'sampled' | 'off' | 'none'

/** `none` for scorers whose key digests everything (ONNX, user keys); for a remote one, `sampled`, `off` (count 0) or `check`. */
export function verifyPlan(identity: CacheIdentity, count: number): VerifyPlan {
  if (identity.remote !== true) return 'none'
  if (identity.sampled === true) return 'sampled'
  return count > 0 ? 'check' : 'off'
}

/**
 * A uniform sample of at most `size` items from a stream of unknown length (reservoir
 * sampling), drawn with a seeded generator: the same run samples the same hits, and every
 * hit of the run, first call or last, is equally likely to be re-checked.
 */
export class Reservoir<T> {
  private readonly items: T[] = []
  private seen = 0
  private readonly random: () => number

  constructor(
    private readonly size: number,
    seed: number,
  ) {
    this.random = mulberry32(seed)
  }

  /** Offer one item. */
  offer(item: T): void {
    this.seen++
    if (this.size <= 0) return
    if (this.items.length < this.size) this.items.push(item)
    else {
      const slot = Math.floor(this.random() * this.seen)
      if (slot < this.size) this.items[slot] = item
    }
  }

  /** The sample so far, and start again. */
  take(): T[] {
    const out = this.items.splice(0)
    this.seen = 0
    return out
  }
}

/** The vector of an outcome normalised to sum 1, or `undefined` for a failure or an unusable vector. */
function normalised(outcome: ScoreOutcome): number[] | undefined {
  if (isScoreFailure(outcome)) return undefined
  const values = (isScoredOutcome(outcome) ? outcome.probabilities : outcome) as unknown
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) return undefined
  const list = Array.from(values as ArrayLike<unknown>)
  if (!list.every((v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0)) return undefined
  const max = largest(list)
  if (!(max > 0)) return undefined
  // Divide by the maximum first, so huge values cannot overflow the sum.
  const scaled = list.map((v) => v / max)
  const sum = scaled.reduce((a, b) => a + b, 0)
  return scaled.map((v) => v / sum)
}

/** max |Δp| between a cached vector and a live outcome; `Infinity` when the live one is a failure or of another length. */
export function maxDelta(cached: ScoreOutcome, live: ScoreOutcome): number {
  const a = normalised(cached)
  const b = normalised(live)
  if (!a || !b || a.length !== b.length) return Infinity
  return a.reduce((max, p, i) => Math.max(max, Math.abs(p - b[i]!)), 0)
}

/** The outcome of comparing re-scored hits with their cached vectors. */
export interface VerifyOutcome {
  /** Hits re-scored. */
  readonly checked: number
  /** Of those, beyond {@link VERIFY_TOLERANCE} (or failing live). */
  readonly differing: number
  /** Largest finite |Δp| seen (0 when none was finite). */
  readonly maxDelta: number
  /** Re-scored hits that failed live (a failure or an unusable vector). */
  readonly failed: number
  /** The first live failure's message, when one was a {@link ScoreFailure}. */
  readonly firstFailure?: string
}

/** Compare cached outcomes with live ones, pairwise. */
export function compareHits(cached: readonly ScoreOutcome[], live: readonly ScoreOutcome[]): VerifyOutcome {
  let differing = 0
  let failed = 0
  let largest = 0
  let firstFailure: string | undefined
  cached.forEach((outcome, i) => {
    const delta = maxDelta(outcome, live[i]!)
    if (delta === Infinity) {
      failed++
      if (firstFailure === undefined && isScoreFailure(live[i])) firstFailure = live[i]!.message
    } else largest = Math.max(largest, delta)
    if (delta > VERIFY_TOLERANCE) differing++
  })
  return { checked: cached.length, differing, maxDelta: largest, failed, ...(firstFailure !== undefined ? { firstFailure } : {}) }
}

/**
 * The run's one-line error when re-checked hits differ; when every difference is a live
 * failure, it says the hits could not be checked (a run never ends green on unchecked hits).
 */
export function staleCacheError(outcome: VerifyOutcome, label: string): ScorerError {
  const first = outcome.firstFailure !== undefined ? ` (first: ${outcome.firstFailure})` : ''
  if (outcome.failed === outcome.differing)
    return new ScorerError(
      `${label}: ${outcome.failed} of ${outcome.checked} re-checked cache hits failed live${first}, so the cache could not be checked against the server; ` +
        'run again when it answers, or opt out of the check with cache verify 0',
    )
  const failed = outcome.failed > 0 ? `; ${outcome.failed} failed live${first}` : ''
  return new ScorerError(
    `${label}: the server's answers changed under the same model name: ${outcome.differing} of ${outcome.checked} re-checked cache hits differ ` +
      `(max |Δp| ${outcome.maxDelta.toFixed(3)}${failed}); the cache is stale for this deployment: clear it (\`sceptic cache clear\`) or name the deployment distinctly`,
  )
}
