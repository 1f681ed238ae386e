/**
 * Betting confidence sequences for Bernoulli rates and for the mean of several class rates
 * (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables by betting",
 * JRSS-B 86(1)), bounded at every look by Ville's inequality (Ville 1939). Pure.
 *
 * To test a rate m, a gambler starts with capital 1 and, before each outcome X ∈ {0, 1},
 * stakes a fraction f of it on "X = 1" (or on "X = 0"): K_t(m) = ∏ (1 + λ_i (X_i − m)) with
 * λ_i ∈ [0, 1/m] (or [−1/(1−m), 0]) chosen before X_i. If m is the true rate every bet is fair,
 * K_t(m) is a nonnegative martingale with K_0 = 1 and P(∃t: K_t(m) ≥ 1/α) ≤ α (Ville), so the
 * rates not yet ruled out, { m : K_t(m) < 1/α }, hold the true rate at every look at once.
 *
 * Rates: a mixture over constant bets (Waudby-Smith & Ramdas 2024, §5, "diversified" betting;
 * any mixture of test martingales is one). A constant-bet capital depends on the counts only,
 * so the bound is a function of (successes, n) like the beta mixture it replaces, and its
 * mixing law can sit where a gate's effects are: most of its weight on fractions under ½
 * (a half-normal of scale ¼ over the fraction of the largest safe stake). For a Bernoulli rate
 * a predictable plug-in bet from a Beta posterior *is* the beta mixture (Robbins 1970), so
 * the gain comes from that law and from one-sided ends, not from the plug-in.
 */

/** Anytime-valid bounds on a rate: each end's level is said where they are computed. */
export interface RateBounds {
  lower: number
  upper: number
}

/** Fractions of the largest safe stake the mixture bets (midpoints of 32 equal cells of (0, 1)). */
const FRACTIONS: readonly number[] = Array.from({ length: 32 }, (_, j) => (j + 0.5) / 32)

/** Scale of the half-normal law over the fractions: Kelly's fraction for a 15-point effect at a 0.7 rate is 0.2 to 0.5. */
export const BET_SCALE = 0.25

/** ln of each fraction's mixing weight (they sum to 1). */
const LOG_WEIGHTS: readonly number[] = (() => {
  const w = FRACTIONS.map((f) => Math.exp(-(f * f) / (2 * BET_SCALE * BET_SCALE)))
  const total = w.reduce((a, b) => a + b, 0)
  return w.map((x) => Math.log(x / total))
})()

/**
 * ln K_n(m) of the mixture over constant bets that the rate is ABOVE m, after `successes` of `n`:
 * each fraction f stakes λ = f/m on a success, so a success multiplies the capital by
 * 1 + f(1 − m)/m and a failure by 1 − f. Convex and nonincreasing in m, ≤ 0 at m = successes/n.
 */
export function logCapitalAbove(successes: number, n: number, m: number): number {
  if (m <= 0) return successes > 0 ? Infinity : 0
  if (m >= 1) return n > successes ? -Infinity : 0
  const failures = n - successes
  const odds = (1 - m) / m
  let max = -Infinity
  const terms = new Array<number>(FRACTIONS.length)
  for (let j = 0; j < FRACTIONS.length; j++) {
    const f = FRACTIONS[j]!
    const t = LOG_WEIGHTS[j]! + (successes > 0 ? successes * Math.log1p(f * odds) : 0) + (failures > 0 ? failures * Math.log1p(-f) : 0)
    terms[j] = t
    if (t > max) max = t
  }
  let sum = 0
  for (const t of terms) sum += Math.exp(t - max)
  return max + Math.log(sum)
}

/** ln K_n(m) of the mirror bet, that the rate is BELOW m. */
export function logCapitalBelow(successes: number, n: number, m: number): number {
  return logCapitalAbove(n - successes, n, 1 - m)
}

/**
 * One-sided anytime-valid ends for a Bernoulli rate after `successes` of `n`: the lower end
 * errs (lies above the true rate at some look) with chance ≤ `alphaLower`, the upper end
 * (below it) with chance ≤ `alphaUpper`; each is the edge of the rates its capital has not
 * ruled out. Ends at level 1 are left open (0 or 1).
 */
export function bettingRateBounds(successes: number, n: number, alphaLower: number, alphaUpper: number): RateBounds {
  for (const a of [alphaLower, alphaUpper]) if (!(a > 0 && a <= 1)) throw new RangeError(`alpha must be in (0, 1], got ${a}`)
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(successes) && successes >= 0 && successes <= n))
    throw new RangeError(`bettingRateBounds: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`)
  if (n === 0) return { lower: 0, upper: 1 }
  const rate = successes / n
  return {
    lower: alphaLower >= 1 ? 0 : edge((m) => logCapitalAbove(successes, n, m) >= Math.log(1 / alphaLower), 0, rate, true),
    upper: alphaUpper >= 1 ? 1 : edge((m) => logCapitalBelow(successes, n, m) >= Math.log(1 / alphaUpper), rate, 1, false),
  }
}

/**
 * The boundary in [lo, hi] between ruled-out rates and the rest (the capital is monotone in m,
 * so the ruled-out set is an end segment); `outsideLow` says which end is ruled out. The
 * inside end is reported, never a ruled-out rate.
 */
function edge(outside: (m: number) => boolean, lo: number, hi: number, outsideLow: boolean): number {
  if (outsideLow ? !outside(lo) : !outside(hi)) return outsideLow ? lo : hi
  for (let i = 0; i < 44; i++) {
    const mid = (lo + hi) / 2
    if (outside(mid) === outsideLow) lo = mid
    else hi = mid
  }
  return outsideLow ? hi : lo
}

/** Bets are quantised to this many steps of the largest safe stake (keeps a class's bet history short). */
const STEPS = 20

/** Share of Kelly's fraction staked (less than all of it: the plug-in estimate is noisy early). */
const KELLY_SHARE = 1

/** Largest fraction the plug-in stakes: a run of bad luck can cost at most this share per outcome. */
const MAX_FRACTION = 0.8

/**
 * Anytime-valid bounds on the mean of K class rates (balanced accuracy: the mean of recalls)
 * when the classes are observed in a schedule fixed before any outcome (the stratified order),
 * with bets chosen from the outcomes so far (predictable plug-in bets, Waudby-Smith & Ramdas
 * 2024, §4) and shared through the pooled estimate, so that four classes do not each pay for
 * learning their own bet from scratch.
 *
 * Validity. Fix candidate rates r = (r_1 … r_K). Class k's capital against "rate above r_k"
 * (mirror: below) multiplies, for each outcome X of that class, by 1 + f·(X − r_k)·c(r_k) with
 * a fraction f chosen before the batch holding X and the same for every candidate r: with
 * c(r) = 1/(1 − r) on the "below" side (a success × (1 − f), a failure × (1 + f·r/(1 − r))),
 * and mirrored on the "above" side. If r is the truth each factor has mean 1 given the past
 * (the class of each step is fixed in advance, its outcome is Bernoulli(r_k)), so the product
 * over classes M_t(r) is a nonnegative martingale and by Ville the true r stays in
 * R_t = { r : ln M_t(r) < ln(1/α) } at every look with chance ≥ 1 − α. Each class's ln M is
 * convex in its r_k (shown per factor), so R_t is convex and the greatest mean rate over it
 * is a one-multiplier Lagrange problem; the bound is read from its dual (weak duality: any
 * multiplier gives a valid upper bound), never from a point that might lie inside R_t.
 * A class not observed yet has no factor and may be anywhere in [0, 1].
 */
export class PooledClassBetting {
  /** Per class, per side: fraction step → [outcomes that lost, outcomes that won] at that stake. */
  private readonly below: Map<number, [number, number]>[]
  private readonly above: Map<number, [number, number]>[]
  private readonly hits: number[]
  private readonly seen: number[]
  /** The stakes for the next outcomes, fixed at the last `bet`. */
  private stakeBelow: number[]
  private stakeAbove: number[]

  /**
   * @param shares each class's share of the decisions to come (the schedule's proportions)
   * @param reference the rate the bets aim to separate from (the threshold); only power depends on it
   */
  constructor(
    private readonly shares: readonly number[],
    private readonly reference: number,
  ) {
    const k = shares.length
    this.below = Array.from({ length: k }, () => new Map())
    this.above = Array.from({ length: k }, () => new Map())
    this.hits = new Array<number>(k).fill(0)
    this.seen = new Array<number>(k).fill(0)
    this.stakeBelow = new Array<number>(k).fill(0)
    this.stakeAbove = new Array<number>(k).fill(0)
    this.bet()
  }

  /** Count one outcome of class `k` at the stakes fixed before it. */
  observe(k: number, hit: boolean): void {
    this.seen[k]!++
    if (hit) this.hits[k]!++
    record(this.below[k]!, this.stakeBelow[k]!, !hit)
    record(this.above[k]!, this.stakeAbove[k]!, hit)
  }

  /**
   * Fix the stakes for the outcomes to come from the outcomes so far: the growth-optimal
   * (Kelly) fraction against the null point nearest the pooled estimate. The estimate of each
   * class is shrunk toward the reference, the null point is the reference-mean rates closest
   * to it in the Fisher metric (moves ∝ variance / share), and Kelly's fraction (capped) is staked.
   */
  bet(): void {
    const K = this.shares.length
    const plan = (side: 1 | -1): number[] => {
      // side 1: stake on "rates below the null" (successes lose); -1: mirrored.
      const ref = side === 1 ? this.reference : 1 - this.reference
      const q = this.seen.map((n, k) => ((side === 1 ? this.hits[k]! : n - this.hits[k]!) + 2 * ref) / (n + 2))
      const mean = q.reduce((a, b) => a + b, 0) / K
      if (mean >= ref) return q.map(() => 0)
      const w = q.map((x, k) => (x * (1 - x)) / Math.max(this.shares[k]!, 1e-9))
      const wMean = w.reduce((a, b) => a + b, 0) / K
      return q.map((x, k) => {
        const r = Math.min(0.999, x + ((ref - mean) * w[k]!) / wMean)
        const kelly = (r - x) / r
        return Math.floor(Math.max(0, Math.min(MAX_FRACTION, KELLY_SHARE * kelly)) * STEPS)
      })
    }
    this.stakeBelow = plan(1)
    this.stakeAbove = plan(-1)
  }

  /** The last looks' multipliers, to start the next search near them. */
  private readonly nearAbove = { lnT: NaN }
  private readonly nearBelow = { lnT: NaN }

  /** One-sided ends: the lower errs with chance ≤ `alphaLower`, the upper with ≤ `alphaUpper`. */
  bounds(alphaLower: number, alphaUpper: number): RateBounds {
    return {
      lower: alphaLower >= 1 ? 0 : 1 - greatestMean(this.above, Math.log(1 / alphaLower), this.nearAbove),
      upper: alphaUpper >= 1 ? 1 : greatestMean(this.below, Math.log(1 / alphaUpper), this.nearBelow),
    }
  }
}

function record(history: Map<number, [number, number]>, step: number, won: boolean): void {
  if (step === 0) return // no stake, no factor
  const cell = history.get(step) ?? history.set(step, [0, 0]).get(step)!
  cell[won ? 1 : 0]++
}

/** A class's bet history as flat arrays (fractions, outcomes lost and won at each), for the inner loops. */
interface Stakes {
  readonly f: Float64Array
  readonly lost: Float64Array
  readonly won: Float64Array
}

function stakesOf(history: Map<number, [number, number]>): Stakes {
  const f = new Float64Array(history.size)
  const lost = new Float64Array(history.size)
  const won = new Float64Array(history.size)
  let i = 0
  for (const [step, [l, w]] of history) {
    f[i] = step / STEPS
    lost[i] = l
    won[i++] = w
  }
  return { f, lost, won }
}

/**
 * ln M(r) of one class's "below" capital: a lost outcome × (1 − f), a won one × (1 + f·r/(1 − r)).
 * Convex and nondecreasing in r.
 */
function logCapital(s: Stakes, r: number): number {
  let sum = 0
  for (let i = 0; i < s.f.length; i++) {
    const f = s.f[i]!
    if (s.lost[i]! > 0) sum += s.lost[i]! * Math.log1p(-f)
    if (s.won[i]! > 0) sum += s.won[i]! * Math.log1p((f * r) / (1 - r))
  }
  return sum
}

/** d ln M / dr, increasing in r. */
function slope(s: Stakes, r: number): number {
  let sum = 0
  for (let i = 0; i < s.f.length; i++) {
    const f = s.f[i]!
    sum += (s.won[i]! * f) / ((1 - r) * (1 - r + f * r))
  }
  return sum
}

/** d² ln M / dr², for Newton's steps on the slope. */
function curvature(s: Stakes, r: number): number {
  let sum = 0
  for (let i = 0; i < s.f.length; i++) {
    const f = s.f[i]!
    const a = 1 - r
    const b = 1 - r + f * r
    sum += (s.won[i]! * f * (b + a * (1 - f))) / (a * a * b * b)
  }
  return sum
}

/** The r in [0, 1) where the slope equals t: Newton's steps kept inside a shrinking bracket. */
function solveSlope(s: Stakes, t: number): number {
  if (slope(s, 0) >= t) return 0
  let lo = 0
  let hi = 1
  let r = 0.5
  for (let i = 0; i < 60 && hi - lo > 1e-12; i++) {
    const h = slope(s, r) - t
    if (h < 0) lo = r
    else hi = r
    const next = r - h / curvature(s, r)
    if (Math.abs(next - r) < 1e-13) return Math.max(lo, Math.min(next, hi))
    r = next > lo && next < hi ? next : (lo + hi) / 2
  }
  return lo
}

/**
 * The greatest mean of r over { Σ_k ln M_k(r_k) < level } (convex), as the dual value
 * min over μ of max_r [mean(r) − μ(Σ ln M_k(r_k) − level)]; every μ's value is an upper bound.
 */
function greatestMean(histories: readonly Map<number, [number, number]>[], level: number, near?: { lnT: number }): number {
  const K = histories.length
  const all = histories.map(stakesOf)
  // Classes without any won stake have a capital that never grows with r: their rate may be 1.
  const free = all.filter((s) => slope(s, 0.5) === 0)
  const tied = all.filter((s) => slope(s, 0.5) > 0)
  if (tied.length === 0) return 1
  const fixed = free.reduce((sum, s) => sum + logCapital(s, 0.5), 0)
  const dual = (lnT: number) => {
    const t = Math.exp(lnT)
    const mu = 1 / (K * t)
    let value = free.length / K + mu * (level - fixed)
    for (const s of tied) {
      const r = solveSlope(s, t)
      value += r / K - mu * logCapital(s, r)
    }
    return value
  }
  // The dual is convex in μ, so unimodal in ln t: a golden-section search finds its least value,
  // near the last look's multiplier when there was one (any multiplier's value is a valid bound).
  const warm = near !== undefined && Number.isFinite(near.lnT)
  let a = warm ? near.lnT - 2 : -16
  let b = warm ? near.lnT + 2 : 16
  const phi = (Math.sqrt(5) - 1) / 2
  let c = b - phi * (b - a)
  let d = a + phi * (b - a)
  let fc = dual(c)
  let fd = dual(d)
  for (let i = 0; i < (warm ? 14 : 36); i++) {
    if (fc <= fd) {
      b = d
      d = c
      fd = fc
      c = b - phi * (b - a)
      fc = dual(c)
    } else {
      a = c
      c = d
      fc = fd
      d = a + phi * (b - a)
      fd = dual(d)
    }
  }
  if (near) near.lnT = fc <= fd ? c : d
  return Math.max(0, Math.min(1, fc, fd))
}
