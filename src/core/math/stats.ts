/**
 * Small-sample statistics for decision evals: intervals, exact tests, a seeded
 * bootstrap, baselines and power. Pure functions over plain arrays; no I/O, no
 * Vitest, no onnxruntime. Formulas and references: docs/statistics.md
 * (Miller 2024; Wilson 1927; Clopper–Pearson 1934; McNemar 1947;
 * Fagerland et al. 2013; Efron 1987; Zheng et al. ICLR 2024).
 */
import { mulberry32 } from './random.ts'
import { dict, own } from '../support/dict.ts'
import { binOf, ECE_BINS, recallByClass } from '../metrics/headline.ts'

/** Default confidence level of every interval: 0.95. */
export const DEFAULT_LEVEL = 0.95

/** Default number of bootstrap resamples: 2000 (the 2.5% quantile of 2000 replicates is off by about ±0.1 standard errors). */
export const DEFAULT_RESAMPLES = 2000

/** Most bootstrap resamples accepted (`--resamples`, `statistics.resamples`): each one is a pass over every decision. */
export const MAX_RESAMPLES = 100_000

/**
 * Replicates {@link percentileBootstrapCounts} draws by default for `count` items:
 * 2000, reduced above 10^4 items so one bootstrap stays near 2·10^7 draws (never
 * below 200). At that size the interval is narrow and the cost is O(replicates·n);
 * the interval records the count actually used.
 */
export function defaultResamples(count: number): number {
  return Math.max(200, Math.min(DEFAULT_RESAMPLES, Math.floor(2e7 / Math.max(1, count))))
}

/** A two-sided interval for a number in [0, 1] (or a difference in [−1, 1]). */
export interface Interval {
  /** The point estimate the interval is about. */
  estimate: number
  /** Lower bound. */
  lower: number
  /** Upper bound. */
  upper: number
  /** Confidence level in (0, 1), e.g. 0.95. */
  level: number
  /** How it was computed. */
  method: 'wilson' | 'clopper-pearson' | 'percentile-bootstrap' | 'clopper-pearson-bonferroni'
}

/** A percentile-bootstrap interval, with what was resampled. */
export interface BootstrapInterval extends Interval {
  /**
   * `percentile-bootstrap`; where the bootstrap collapsed to a point (every decision
   * wrong, right or consistent), the exact interval put in its place:
   * `clopper-pearson` (a proportion) or `clopper-pearson-bonferroni` (balanced accuracy).
   */
  method: 'percentile-bootstrap' | 'clopper-pearson' | 'clopper-pearson-bonferroni'
  /** Replicates drawn (replicates where the statistic is undefined are dropped and not counted). */
  resamples: number
  /** What was resampled with replacement: whole groups (cluster bootstrap) or single items. */
  unit: 'groups' | 'items'
  /** How many groups or items there were to resample. */
  units: number
  /** Seed of the PRNG (mulberry32); the same seed and data give the same interval. */
  seed: number
}

// ---------------------------------------------------------------------------
// Normal quantiles

/**
 * Standard normal quantile Φ⁻¹(p) for p in (0, 1), by Wichura's algorithm AS 241
 * (PPND16, Applied Statistics 37:477–484, 1988), accurate to about 1e-16.
 * `normalQuantile(0.975)` = 1.959963984540054. Returns ±Infinity at 0 and 1.
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normalQuantile: p must be in [0, 1], got ${p}`)
  if (p === 0) return -Infinity
  if (p === 1) return Infinity
  const q = p - 0.5
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q
    return (
      (q *
        (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r +
          45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r +
          133.14166789178437745) * r + 3.387132872796366608)) /
      (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r +
        21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r +
        42.313330701600911252) * r + 1)
    )
  }
  let r = q < 0 ? p : 1 - p
  r = Math.sqrt(-Math.log(r))
  let x: number
  if (r <= 5) {
    r -= 1.6
    x =
      (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r +
        1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r +
        4.6303378461565452959) * r + 1.42343711074968357734) /
      (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r +
        0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r +
        2.05319162663775882187) * r + 1)
  } else {
    r -= 5
    x =
      (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r +
        0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r +
        5.4637849111641143699) * r + 6.6579046435011037772) /
      (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
        7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r +
        0.59983220655588793769) * r + 1)
  }
  return q < 0 ? -x : x
}

function twoSidedZ(level: number): number {
  checkLevel(level)
  return normalQuantile(1 - (1 - level) / 2)
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`)
}

function checkCount(successes: number, n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`)
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new RangeError(`successes must be an integer in [0, n=${n}], got ${successes}`)
}

// ---------------------------------------------------------------------------
// Intervals for a proportion

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
  const z = twoSidedZ(level)
  if (n === 0) return { estimate: 0, lower: 0, upper: 1, level, method: 'wilson' }
  const p = successes / n
  const z2 = z * z
  const denominator = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denominator
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  // Clamp rounding only; at 0/n and n/n the exact bound is 0 or 1.
  const lower = successes === 0 ? 0 : Math.max(0, centre - half)
  const upper = successes === n ? 1 : Math.min(1, centre + half)
  return { estimate: p, lower: Math.min(lower, p), upper: Math.max(upper, p), level, method: 'wilson' }
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

// ---------------------------------------------------------------------------
// Exact binomial helpers

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

// ---------------------------------------------------------------------------
// McNemar

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

// ---------------------------------------------------------------------------
// Bootstrap

/** Options for {@link percentileBootstrap}. */
export interface BootstrapOptions {
  /**
   * Cluster of each item (same length as the items). When given, whole clusters are
   * resampled with replacement (the cluster bootstrap; items sharing evidence are not
   * independent, Miller 2024 §2.2). `null`/`undefined` entries are singleton clusters.
   */
  groups?: readonly (string | null | undefined)[]
  /** PRNG seed (mulberry32). Default 0. */
  seed?: number
  /** Replicates to draw. Default {@link DEFAULT_RESAMPLES}. */
  resamples?: number
  /** Confidence level. Default 0.95. */
  level?: number
}

/**
 * Seeded percentile bootstrap (Efron & Tibshirani 1993): resample
 * items (or whole groups) with replacement, recompute `statistic` on each replicate,
 * and take the (α/2, 1 − α/2) quantiles of the replicates (linear interpolation,
 * Hyndman–Fan type 7). Replicates where the statistic is not finite (e.g. no decision
 * with two orderings drawn) are dropped. Deterministic for a given seed and data.
 *
 * Caveats: at 0/n or n/n it collapses to a zero-width interval, and it under-covers at
 * small n; use {@link wilsonInterval} for plain proportions. Returns `null` when the
 * statistic is not finite on the data itself.
 *
 * @param items the data; one entry per decision
 * @param statistic computed on a resampled array (order not meaningful)
 */
export function percentileBootstrap<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { seed = 0, resamples = DEFAULT_RESAMPLES, level = DEFAULT_LEVEL, groups } = options
  checkLevel(level)
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES) throw new RangeError(`resamples must be an integer ≥ 1 and ≤ ${MAX_RESAMPLES}, got ${resamples}`)
  if (groups && groups.length !== items.length)
    throw new RangeError(`groups has ${groups.length} entries for ${items.length} items`)
  const estimate = statistic(items)
  if (!Number.isFinite(estimate)) return null
  const clusters = clustersOf(items.length, groups)
  const random = mulberry32(seed)
  const replicates: number[] = []
  const sample: T[] = []
  for (let r = 0; r < resamples; r++) {
    sample.length = 0
    for (let j = 0; j < clusters.length; j++) {
      const cluster = clusters[Math.floor(random() * clusters.length)]!
      for (const index of cluster) sample.push(items[index]!)
    }
    const value = statistic(sample)
    if (Number.isFinite(value)) replicates.push(value)
  }
  return percentileInterval(estimate, replicates, level, seed, clusters.length, items.length, groups !== undefined && groups !== null)
}

/**
 * Paired percentile bootstrap of `statistic(b) − statistic(a)` (Koehn 2004;
 * Berg-Kirkpatrick et al. 2012): one set of resampled indices is applied to both
 * systems, so the item-level correlation is kept. Same options and caveats as
 * {@link percentileBootstrap}.
 */
export function pairedBootstrapDifference<T>(
  a: readonly T[],
  b: readonly T[],
  statistic: (sample: readonly T[]) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length: ${a.length} vs ${b.length}`)
  const pairs = a.map((x, i) => [x, b[i]!] as const)
  return percentileBootstrap(
    pairs,
    (sample) => statistic(sample.map((pair) => pair[1])) - statistic(sample.map((pair) => pair[0])),
    options,
  )
}

/**
 * The same percentile bootstrap as {@link percentileBootstrap}, for large sets: each
 * replicate is handed to `statistic` as a multiplicity per item (how often item i was
 * drawn; whole groups when `groups` is given) instead of a copied array, so a
 * statistic can run over typed arrays with no allocation. `count` items.
 */
export function percentileBootstrapCounts(
  count: number,
  statistic: (weights: Int32Array) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { seed = 0, resamples = defaultResamples(count), level = DEFAULT_LEVEL, groups } = options
  checkLevel(level)
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES) throw new RangeError(`resamples must be an integer ≥ 1 and ≤ ${MAX_RESAMPLES}, got ${resamples}`)
  if (groups && groups.length !== count) throw new RangeError(`groups has ${groups.length} entries for ${count} items`)
  const weights = new Int32Array(count).fill(1)
  const estimate = statistic(weights)
  if (!Number.isFinite(estimate)) return null
  const clusters = clustersOf(count, groups)
  // Clusters flattened (members of cluster c at offsets[c] .. offsets[c + 1]): the same
  // draws in the same order as iterating the arrays, without chasing an array per draw.
  const m = clusters.length
  const offsets = new Int32Array(m + 1)
  for (let c = 0; c < m; c++) offsets[c + 1] = offsets[c]! + clusters[c]!.length
  const members = new Int32Array(offsets[m]!)
  for (let c = 0; c < m; c++) members.set(clusters[c]!, offsets[c]!)
  const random = mulberry32(seed)
  const replicates: number[] = []
  for (let r = 0; r < resamples; r++) {
    weights.fill(0)
    // Without groups every cluster is item j itself: index directly (no pointer chasing).
    if (!groups) for (let j = 0; j < count; j++) weights[Math.floor(random() * count)]!++
    else
      for (let j = 0; j < m; j++) {
        const c = Math.floor(random() * m)
        for (let k = offsets[c]!, end = offsets[c + 1]!; k < end; k++) weights[members[k]!]!++
      }
    const value = statistic(weights)
    if (Number.isFinite(value)) replicates.push(value)
  }
  return percentileInterval(estimate, replicates, level, seed, clusters.length, count, groups !== undefined && groups !== null)
}
/**
 * The percentile interval of sorted-or-not replicates, with how it was made. It always
 * holds its estimate, as Wilson's does: a replicate statistic can sit on one side of
 * the estimate (balanced accuracy over the classes a replicate drew: with many rare
 * classes most replicates miss one), and the quantiles would then exclude it.
 */
function percentileInterval(
  estimate: number,
  replicates: number[],
  level: number,
  seed: number,
  clusters: number,
  items: number,
  grouped: boolean,
): BootstrapInterval {
  replicates.sort((x, y) => x - y)
  const alpha = 1 - level
  return {
    estimate,
    lower: replicates.length > 0 ? Math.min(quantileSorted(replicates, alpha / 2), estimate) : estimate,
    upper: replicates.length > 0 ? Math.max(quantileSorted(replicates, 1 - alpha / 2), estimate) : estimate,
    level,
    method: 'percentile-bootstrap',
    resamples: replicates.length,
    unit: grouped && clusters < items ? 'groups' : 'items',
    units: clusters,
    seed,
  }
}


/**
 * Balanced accuracy of a weighted sample, for {@link percentileBootstrapCounts}:
 * `classOf[i]` is item i's gold class (0..classes−1), `hit[i]` 1 when it was answered
 * right. Mean over the classes drawn at least once of (weighted hits / weighted count);
 * NaN when nothing was drawn.
 */
export function weightedBalancedAccuracy(
  classOf: Int32Array,
  hit: Uint8Array,
  classes: number,
  weights: Int32Array,
  scratch = new Float64Array(2 * classes),
): number {
  scratch.fill(0)
  for (let i = 0; i < classOf.length; i++) {
    const w = weights[i]!
    if (w === 0) continue
    const c = classOf[i]!
    scratch[2 * c]! += w
    if (hit[i]) scratch[2 * c + 1]! += w
  }
  let sum = 0
  let present = 0
  for (let c = 0; c < classes; c++) {
    const total = scratch[2 * c]!
    if (total === 0) continue
    sum += scratch[2 * c + 1]! / total
    present++
  }
  return present === 0 ? NaN : sum / present
}

/** Gold labels as dense class indices (first-seen order) for {@link weightedBalancedAccuracy}. */
export function classIndices(gold: readonly string[]): { classOf: Int32Array; classes: number } {
  const index = new Map<string, number>()
  const classOf = new Int32Array(gold.length)
  gold.forEach((label, i) => {
    let c = index.get(label)
    if (c === undefined) index.set(label, (c = index.size))
    classOf[i] = c
  })
  return { classOf, classes: index.size }
}

function clustersOf(count: number, groups: BootstrapOptions['groups']): number[][] {
  if (!groups) return Array.from({ length: count }, (_, i) => [i])
  const byGroup = new Map<string, number[]>()
  const clusters: number[][] = []
  for (let i = 0; i < count; i++) {
    const group = groups[i]
    if (group == null) {
      clusters.push([i])
      continue
    }
    let members = byGroup.get(group)
    if (!members) {
      byGroup.set(group, (members = []))
      clusters.push(members)
    }
    members.push(i)
  }
  return clusters
}

/** Quantile of sorted values by linear interpolation between order statistics (type 7). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.ceil(h)
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!)
}

// ---------------------------------------------------------------------------
// Baselines and chance references

/** The majority-class baseline of a labelled set. */
export interface MajorityBaseline {
  /** Most frequent gold answer per group (criterion key): what the baseline always answers. Ties: first in sorted order. */
  answers: Record<string, string>
  /** Its accuracy on the same rows: Σ_groups max_k n_gk / n. In-sample, so slightly optimistic for the baseline. */
  accuracy: number
  /** Wilson interval of that accuracy. */
  interval: Interval
  /** Its balanced accuracy on the same rows (1/K for a single group with K gold classes). */
  balancedAccuracy: number
  /** Per-row hit of the baseline, for paired tests against a model. */
  hits: boolean[]
}

/**
 * Majority-class baseline (docs/statistics.md#baselines-and-verdicts): within each group (the criterion
 * key; a single group when `groups` is omitted) always answer that group's most
 * frequent gold answer. Accuracy = Σ_g max_k n_gk / n; a constant predictor's
 * balanced accuracy is 1/K over the K classes present in gold.
 *
 * @param gold gold answer per row
 * @param groups group per row (criterion key); default one group
 */
export function majorityBaseline(
  gold: readonly string[],
  groups?: readonly string[],
  level = DEFAULT_LEVEL,
): MajorityBaseline {
  const groupOfRow = (i: number) => groups?.[i] ?? ''
  const counts = new Map<string, Map<string, number>>()
  gold.forEach((label, i) => {
    const group = groupOfRow(i)
    const byLabel = counts.get(group) ?? new Map<string, number>()
    byLabel.set(label, (byLabel.get(label) ?? 0) + 1)
    counts.set(group, byLabel)
  })
  const answers = dict<string>()
  for (const group of [...counts.keys()].sort()) {
    let best = ''
    let bestCount = -1
    for (const [label, count] of [...counts.get(group)!].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      if (count > bestCount) [best, bestCount] = [label, count]
    answers[group] = best
  }
  const predictions = gold.map((_, i) => own(answers, groupOfRow(i))!)
  const hits = gold.map((label, i) => predictions[i] === label)
  const successes = hits.filter(Boolean).length
  const recalls = [...recallByClass(gold, predictions).values()]
  return {
    answers,
    accuracy: gold.length === 0 ? 0 : successes / gold.length,
    interval: wilsonInterval(successes, gold.length, level),
    balancedAccuracy: recalls.length === 0 ? 0 : recalls.reduce((s, v) => s + v, 0) / recalls.length,
    hits,
  }
}

/**
 * Expected balanced accuracy of a uniform random guesser: for each gold class the
 * mean of 1/options over its rows, then the mean over classes (what `manifest.chance`
 * is for accuracy, but weighted like balanced accuracy).
 */
export function chanceBalancedAccuracy(gold: readonly string[], optionCounts: readonly number[]): number {
  const byClass = new Map<string, [sum: number, count: number]>()
  gold.forEach((label, i) => {
    const entry = byClass.get(label) ?? [0, 0]
    entry[0] += 1 / optionCounts[i]!
    entry[1]++
    byClass.set(label, entry)
  })
  const means = [...byClass.values()].map(([sum, count]) => sum / count)
  return means.length === 0 ? 0 : means.reduce((s, x) => s + x, 0) / means.length
}

/**
 * Probability that a uniform random guesser gives the same answer under all m
 * orderings of an n-option decision: n·(1/n)^m. With m = n (cyclic) that is
 * n^(1−n): 1/2, 1/9, 1/64, 1/625 for n = 2..5 (the probability a uniform guesser is right under all n rotations).
 */
export function chanceOrderConsistency(optionCount: number, orderingCount: number): number {
  if (orderingCount <= 1) return 1
  return optionCount * (1 / optionCount) ** orderingCount
}

// ---------------------------------------------------------------------------
// Standard errors and power (Miller 2024)

/** Central-limit standard error of a mean (Miller 2024 Eq. 1): √(s²/n) with the n − 1 sample variance. 0 for n < 2. */
export function cltStandardError(scores: readonly number[]): number {
  const n = scores.length
  if (n < 2) return 0
  const mean = scores.reduce((s, x) => s + x, 0) / n
  const variance = scores.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)
  return Math.sqrt(variance / n)
}

/**
 * Clustered standard error of a mean (Miller 2024 Eq. 4, App. A):
 * `√(Σ_c (Σ_{i∈c} (s_i − s̄))²) / n`, without Inspect's C/(C − 1) correction
 * (Inspect's value is larger by exactly √(C/(C − 1))). Scores [1,1,1,0,0,0,1,0] in
 * clusters [0,0,0,1,1,1,2,2] → 0.26517. `null` cluster ids are singletons.
 */
export function clusteredStandardError(scores: readonly number[], clusters: readonly (string | number | null | undefined)[]): number {
  const n = scores.length
  if (n === 0) return 0
  const mean = scores.reduce((s, x) => s + x, 0) / n
  const sums = new Map<unknown, number>()
  scores.forEach((score, i) => {
    const key = clusters[i] ?? Symbol(i)
    sums.set(key, (sums.get(key) ?? 0) + (score - mean))
  })
  let total = 0
  for (const sum of sums.values()) total += sum * sum
  return Math.sqrt(total) / n
}

/** Inputs of Miller's power formula (Eq. 10); variances are per-question, on the score's scale. */
export interface MillerPowerInput {
  /** ω² = Var(x_A) + Var(x_B) − 2·Cov(x_A, x_B): variance of the per-question difference of mean scores. */
  omega2: number
  /** Within-question (sampling) variance of A's score, σ_A². Default 0 (next-token probabilities remove it). */
  sigmaA2?: number
  /** Within-question variance of B's score, σ_B². Default 0. */
  sigmaB2?: number
  /** Samples per question for A, K_A. Default 1. */
  kA?: number
  /** Samples per question for B, K_B. Default 1. */
  kB?: number
  /** Significance level α. Default 0.05. */
  alpha?: number
  /** Power 1 − β. Default 0.8. */
  power?: number
  /** Two-sided (z_{α/2}, default) or one-sided (z_α) test. */
  sides?: 1 | 2
}

function millerVariance({ omega2, sigmaA2 = 0, sigmaB2 = 0, kA = 1, kB = 1 }: MillerPowerInput): number {
  return omega2 + sigmaA2 / kA + sigmaB2 / kB
}

function millerZ({ alpha = 0.05, power = 0.8, sides = 2 }: MillerPowerInput): number {
  return normalQuantile(1 - alpha / sides) + normalQuantile(power)
}

/**
 * Minimum detectable effect of a paired comparison (Miller 2024 Eq. 10):
 * `δ = (z_{α/s} + z_β)·√((ω² + σ_A²/K_A + σ_B²/K_B) / n)`. With σ² = 1/6, ω² = 1/9,
 * n = 200: 0.1321 at K = 1 and 0.0753 at K = 10.
 */
export function millerMinimumDetectableEffect(n: number, input: MillerPowerInput): number {
  if (!(n > 0)) return Infinity
  return millerZ(input) * Math.sqrt(millerVariance(input) / n)
}

/**
 * Questions needed to detect a difference δ (Miller 2024 Eq. 9):
 * `n = (z_{α/s} + z_β)²·(ω² + σ_A²/K_A + σ_B²/K_B) / δ²`, unrounded (ω² = 1/9, δ = 0.03 → 968.997).
 */
export function millerSampleSize(delta: number, input: MillerPowerInput): number {
  return (millerZ(input) ** 2 * millerVariance(input)) / (delta * delta)
}

/** Options for {@link minimumDetectableDifference}. */
export interface MinimumDetectableDifferenceOptions {
  /** Accuracy p of the model whose hits are compared; sets the hit variance p(1 − p). Default 0.5 (the worst case). */
  accuracy?: number
  /** Assumed correlation ρ of two models' per-item hits. Default 0.5 (Anthropic reports 0.3–0.7 across models). */
  correlation?: number
  /** Design effect: clustered over naive variance of the mean, ≥ 1 (see {@link designEffect}). Default 1. */
  designEffect?: number
  /** Significance α. Default 0.05. */
  alpha?: number
  /** Power. Default 0.8. */
  power?: number
  /** Two-sided (default) or one-sided test. */
  sides?: 1 | 2
}

/**
 * Smallest accuracy difference between two models on this set that a paired test
 * would detect with 80% power at α = 0.05 two-sided (Miller 2024 Eq. 10 with binary
 * hits, K = 1, σ² = 0): `MDD = (z_{α/2} + z_β)·√(deff·2p(1 − p)(1 − ρ) / n)`, where
 * ω² = Var(hit_A − hit_B) = 2p(1 − p)(1 − ρ) for two models of accuracy p whose hits
 * correlate ρ. At n = 24, p = 0.7, ρ = 0.5 it is ≈ 0.26: a set this size detects only
 * large changes. In accuracy units (0.26 = 26 percentage points).
 */
export function minimumDetectableDifference(n: number, options: MinimumDetectableDifferenceOptions = {}): number {
  const { accuracy = 0.5, correlation = 0.5, designEffect: deff = 1, alpha = 0.05, power = 0.8, sides = 2 } = options
  const omega2 = 2 * accuracy * (1 - accuracy) * (1 - correlation) * Math.max(1, deff)
  return millerMinimumDetectableEffect(n, { omega2, alpha, power, sides })
}

/**
 * Design effect of clustering for a mean: (clustered SE / CLT SE)², floored at 1
 * (Miller 2024: DROP's SE ratio 3.05 is a design effect of 9.3). 1 when fewer than
 * two clusters or no variance.
 */
export function designEffect(scores: readonly number[], clusters: readonly (string | number | null | undefined)[]): number {
  const naive = cltStandardError(scores)
  if (naive === 0) return 1
  const distinct = new Set(clusters.map((c, i) => c ?? `#${i}`)).size
  if (distinct < 2) return 1
  return Math.max(1, (clusteredStandardError(scores, clusters) / naive) ** 2)
}

// ---------------------------------------------------------------------------
// Bias and calibration diagnostics

/**
 * RStd, PriDe's selection-bias metric (Zheng et al., ICLR 2024, `debias_pride.py`):
 * the population standard deviation (ddof = 0) of per-class recall **in percent**,
 * over the classes present in `gold`. Called with slot letters as the classes, as in
 * PriDe. An always-A answerer with gold spread over A–D scores 43.3013. `null` for
 * no rows.
 */
export function rstd(gold: readonly string[], predictions: readonly string[]): number | null {
  const recalls = [...recallByClass(gold, predictions).values()].map((r) => 100 * r)
  if (recalls.length === 0) return null
  const mean = recalls.reduce((s, x) => s + x, 0) / recalls.length
  return Math.sqrt(recalls.reduce((s, x) => s + (x - mean) ** 2, 0) / recalls.length)
}

/** Rows below which binned ECE is not reported as trustworthy: 300 (HELM's `ece_10_bin` note). */
export const ECE_MIN_ROWS = 300

/** What a perfectly calibrated model with the same confidences would score. */
export interface EceNoiseFloor {
  /** Mean ECE over the simulations. */
  mean: number
  /** 95th percentile: an observed ECE below it is indistinguishable from perfect calibration. */
  p95: number
  /** Simulations run. */
  simulations: number
}

/**
 * Monte-Carlo ECE of a perfectly calibrated model (Roelofs et al.,
 * AISTATS 2022): keep the observed confidences, draw each hit ~ Bernoulli(confidence),
 * compute binned ECE exactly as `expectedCalibrationError` does (same right-closed
 * bins). Seeded. With all confidences 0.75 and n = 24 the mean tends to
 * the closed form E|X/24 − 0.75| = 0.0695.
 */
export function eceNoiseFloor(
  confidences: readonly number[],
  { seed = 0, simulations = 1000, bins = ECE_BINS }: { seed?: number; simulations?: number; bins?: number } = {},
): EceNoiseFloor {
  const random = mulberry32(seed)
  const values: number[] = []
  const n = confidences.length
  // Bins and per-bin confidence sums do not change between simulations; only the hits do.
  const binOfRow = Int32Array.from(confidences, (c) => binOf(c, bins))
  const count = new Float64Array(bins)
  const confSum = new Float64Array(bins)
  confidences.forEach((c, i) => {
    count[binOfRow[i]!]!++
    confSum[binOfRow[i]!]! += c
  })
  // Typed rows and a branch-free count: the draw (random() < confidence) is unpredictable,
  // so a branch per row mispredicts half the time (2× slower at 500 × 10^5 draws).
  const confidence = Float64Array.from(confidences)
  const hitSum = new Int32Array(bins)
  for (let s = 0; s < simulations; s++) {
    hitSum.fill(0)
    for (let i = 0; i < n; i++) hitSum[binOfRow[i]!]! += +(random() < confidence[i]!)
    let ece = 0
    for (let k = 0; k < bins; k++) if (count[k]! > 0) ece += (count[k]! / n) * Math.abs(hitSum[k]! / count[k]! - confSum[k]! / count[k]!)
    values.push(ece)
  }
  values.sort((x, y) => x - y)
  return { mean: values.reduce((s, x) => s + x, 0) / Math.max(1, values.length), p95: quantileSorted(values, 0.95), simulations }
}

/** The ECE warning rule's verdict. */
export interface EceReliability {
  /** True only when n ≥ {@link ECE_MIN_ROWS} and the observed ECE exceeds the noise floor's 95th percentile. */
  reliable: boolean
  /** Why not, in one phrase; `null` when reliable. */
  reason: string | null
  /** The simulated floor. */
  floor: EceNoiseFloor
}

/**
 * ECE noise-floor rule: binned ECE is reported as reliable only when there are at
 * least 300 rows (HELM) *and* the observed ECE is above what a perfectly calibrated
 * model with the same confidences scores 95% of the time. Otherwise the report points
 * to the Brier score, a proper scoring rule without bins.
 */
export function eceReliability(
  ece: number,
  confidences: readonly number[],
  options: { seed?: number; simulations?: number; bins?: number } = {},
): EceReliability {
  const floor = eceNoiseFloor(confidences, options)
  const n = confidences.length
  let reason: string | null = null
  if (n < ECE_MIN_ROWS) reason = `n = ${n} < ${ECE_MIN_ROWS}: binned ECE is mostly noise at this size`
  else if (ece <= floor.p95)
    reason = `ECE ${ece.toFixed(3)} is within the noise floor of a perfectly calibrated model (95th pct ${floor.p95.toFixed(3)})`
  return { reliable: reason === null, reason, floor }
}
