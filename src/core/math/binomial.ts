/**
 * Intervals for a proportion and exact binomial tests: Wilson (1927),
 * Clopper–Pearson (1934), the exact McNemar test (McNemar 1947; Fagerland et al. 2013).
 */
import { checkLevel, DEFAULT_LEVEL, type Interval, twoSidedZ } from './normal.ts'

function checkCount(successes: number, n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`)
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new RangeError(`successes must be an integer in [0, n=${n}], got ${successes}`)
}


/**
 * Wilson score interval for a binomial proportion (Wilson, JASA 22:209–212, 1927):
 * centre `(p̂ + z²/2n)/(1 + z²/n)`, half-width `z/(1 + z²/n)·√(p̂(1−p̂)/n + z²/4n²)`.
 * Recommended at small n over the Wald interval (Brown, Cai & DasGupta 2001): it
 * never collapses at 0/n or n/n and always contains p̂. 20/24 at 95% → (0.6415, 0.9332).
 * `n = 0` gives the vacuous interval [0, 1] with estimate 0.
 *
 * @param successes hits, an integer in [0, n]
 * @param n trials
 * @param level confidence level, default 0.95
 */
export function wilsonInterval(successes: number, n: number, level = DEFAULT_LEVEL): Interval {
  checkCount(successes, n)
  if (n === 0) return { estimate: 0, lower: 0, upper: 1, level, method: 'wilson' }
  const p = successes / n
  const { lower, upper } = wilsonBounds(p, n, level)
  return { estimate: p, lower, upper, level, method: 'wilson' }
}

/**
 * Wilson's (1927) score bounds for an observed share `p` over `n` trials, where `n` may be an
 * effective sample size (n / design effect, Kish 1965; Korn & Graubard, Survey Methodology
 * 24:193–201, 1998) and so not an integer. Always holds p; exactly 0 at p = 0 and 1 at p = 1.
 */
export function wilsonBounds(p: number, n: number, level = DEFAULT_LEVEL): { lower: number; upper: number } {
  if (!(n > 0)) return { lower: 0, upper: 1 }
  const z = twoSidedZ(level)
  const z2 = z * z
  const denominator = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denominator
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  // Clamp rounding only; at 0/n and n/n the exact bound is 0 or 1.
  const lower = p <= 0 ? 0 : Math.max(0, centre - half)
  const upper = p >= 1 ? 1 : Math.min(1, centre + half)
  return { lower: Math.min(lower, p), upper: Math.max(upper, p) }
}

/**
 * Clopper–Pearson "exact" interval (Biometrika 26:404–413, 1934): the lower bound is
 * the p with P(X ≥ x; n, p) = α/2 (0 when x = 0), the upper bound the p with
 * P(X ≤ x; n, p) = α/2 (1 when x = n), found by bisection on the exact binomial tails.
 * Conservative (coverage ≥ level). 20/24 → (0.6262, 0.9526); 0/24 upper → 0.14247.
 *
 * @param successes hits, an integer in [0, n]
 * @param n trials
 * @param level confidence level, default 0.95
 */
export function clopperPearsonInterval(successes: number, n: number, level = DEFAULT_LEVEL): Interval {
  checkCount(successes, n)
  checkLevel(level)
  if (n === 0) return { estimate: 0, lower: 0, upper: 1, level, method: 'clopper-pearson' }
  const alpha = 1 - level
  const lower = successes === 0 ? 0 : bisect((p) => binomialUpperTail(successes, n, p) - alpha / 2, true)
  const upper = successes === n ? 1 : bisect((p) => binomialLowerTail(successes, n, p) - alpha / 2, false)
  return { estimate: successes / n, lower, upper, level, method: 'clopper-pearson' }
}

/** Root in [0, 1] of a monotone function (increasing when `increasing`), by 200 bisection steps. */
function bisect(f: (p: number) => number, increasing: boolean): number {
  let lo = 0
  let hi = 1
  for (let i = 0; i < 200 && hi - lo > 1e-16; i++) {
    const mid = (lo + hi) / 2
    const value = f(mid)
    if (value > 0 === increasing) hi = mid
    else lo = mid
  }
  return (lo + hi) / 2
}


const LOG_FACTORIAL: number[] = [0]

/** ln(n!) for a non-negative integer n: an exact running sum of logs up to 2048, Stirling's series beyond. */
export function logFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`logFactorial: n must be a non-negative integer, got ${n}`)
  if (n < 2048) {
    while (LOG_FACTORIAL.length <= n) LOG_FACTORIAL.push(LOG_FACTORIAL[LOG_FACTORIAL.length - 1]! + Math.log(LOG_FACTORIAL.length))
    return LOG_FACTORIAL[n]!
  }
  const x = n + 1
  // Stirling series for ln Γ(x); at x > 2048 the omitted terms are below 1e-20.
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x ** 3) + 1 / (1260 * x ** 5)
}

/**
 * Binomial probability P(X = k) for X ~ Bin(n, p). For p = ½ and n ≤ 1000 it is
 * computed as C(n, k)·2⁻ⁿ by exact-as-possible products (so McNemar p-values such as
 * 22/1024 come out exactly); otherwise in log space.
 */
export function binomialPmf(k: number, n: number, p: number): number {
  if (!Number.isInteger(k) || k < 0 || k > n) return 0
  if (p === 0) return k === 0 ? 1 : 0
  if (p === 1) return k === n ? 1 : 0
  if (p === 0.5 && n <= 1000) {
    const m = Math.min(k, n - k)
    let c = 1
    for (let i = 0; i < m; i++) c = (c * (n - i)) / (i + 1)
    return c * 2 ** -n
  }
  return Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) + k * Math.log(p) + (n - k) * Math.log1p(-p))
}

/** Lower tail P(X ≤ k) for X ~ Bin(n, p), by summing the smaller side exactly. */
export function binomialLowerTail(k: number, n: number, p: number): number {
  if (k < 0) return 0
  if (k >= n) return 1
  let sum = 0
  for (let i = 0; i <= k; i++) sum += binomialPmf(i, n, p)
  return Math.min(1, sum)
}

/** Upper tail P(X ≥ k) for X ~ Bin(n, p). */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1
  if (k > n) return 0
  let sum = 0
  for (let i = k; i <= n; i++) sum += binomialPmf(i, n, p)
  return Math.min(1, sum)
}


/** Result of an exact McNemar test on a paired 2×2 table's discordant cells. */
export interface McNemarResult {
  /** Pairs where the first is right and the second wrong. */
  b: number
  /** Pairs where the first is wrong and the second right. */
  c: number
  /** Discordant pairs, b + c. */
  discordant: number
  /** Exact conditional two-sided p: `min(1, 2·P(X ≤ min(b, c)))`, X ~ Bin(b + c, ½). 1 when b + c = 0. */
  pTwoSided: number
  /**
   * Two-sided mid-p (Fagerland, Lydersen & Laake 2013): `min(1, 2·P(X < min) + P(X = min))`.
   * Less conservative than the exact p and recommended by them. At b = c it is 1.
   */
  pMid: number
  /** One-sided exact p for "b's side is more likely": `P(X ≥ b)`, X ~ Bin(b + c, ½). */
  pBGreater: number
  /** One-sided exact p for "c's side is more likely": `P(X ≥ c)`. With b = 1, c = 6: 0.0625. */
  pCGreater: number
}

/**
 * Exact McNemar test (McNemar, Psychometrika 12:153–157, 1947; exact form as in
 * Dietterich 1998). Under H0 the discordant pairs split b ~ Bin(b + c, ½).
 * (0, 5) → 0.0625; (1, 9) → 0.021484375 (mid-p 0.011719); (3, 8) → 0.2266.
 *
 * Mid-p note: a commonly printed mid-p for (5, 5) is 0.7539, from subtracting
 * P(X = min) after capping at 1; we use Fagerland's definition (subtract half the
 * point probability from each tail before capping), which gives 1 at b = c and
 * agrees everywhere else.
 */
export function mcnemarExact(b: number, c: number): McNemarResult {
  checkCount(0, b)
  checkCount(0, c)
  const n = b + c
  if (n === 0) return { b, c, discordant: 0, pTwoSided: 1, pMid: 1, pBGreater: 1, pCGreater: 1 }
  const m = Math.min(b, c)
  const below = binomialLowerTail(m - 1, n, 0.5)
  const at = binomialPmf(m, n, 0.5)
  return {
    b,
    c,
    discordant: n,
    pTwoSided: Math.min(1, 2 * (below + at)),
    pMid: Math.min(1, 2 * below + at),
    pBGreater: binomialUpperTail(b, n, 0.5),
    pCGreater: binomialUpperTail(c, n, 0.5),
  }
}
