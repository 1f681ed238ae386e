/**
 * Exact tests of "no better than guessing": what a uniform random guesser scores on the same
 * rows, for accuracy (`toHaveAccuracyAboveChance` and the report's verdict), order consistency
 * and balanced accuracy. Each p-value is P(guesser ≥ observed), one-sided.
 */
import { binomialPmf } from '../math/binomial.ts'
import { DEFAULT_LEVEL } from '../math/normal.ts'

/**
 * The one-sided significance at which "better than chance" is decided for intervals at
 * `level`: (1 − level)/2, the error rate of the interval's lower bound (0.025 at 95%).
 * The report's verdicts and `toHaveAccuracyAboveChance()` both read it.
 */
export function chanceAlpha(level: number = DEFAULT_LEVEL): number {
  return (1 - level) / 2
}

/** A distribution on the integers `offset … offset + mass.length − 1`. */
interface Pmf {
  offset: number
  mass: Float64Array
}

/** Mass below this is folded into its neighbour when a tail is trimmed (see {@link binomialTrimmed}). */
const TRIM = 1e-18

/**
 * Bin(n, q) on its support, with the far tails trimmed: the lower tail (mass < 1e-18) is moved
 * up onto the first kept value, which only makes the guesser stronger (conservative); the upper
 * tail (mass < 1e-18) onto the last kept value, an error of at most 1e-18 per term in a p-value.
 */
function binomialTrimmed(n: number, q: number): Pmf {
  const mass = new Float64Array(n + 1)
  for (let x = 0; x <= n; x++) mass[x] = binomialPmf(x, n, q)
  let lo = 0
  let carried = 0
  while (lo < n && carried + mass[lo]! < TRIM) carried += mass[lo++]!
  let hi = n
  let above = 0
  while (hi > lo && above + mass[hi]! < TRIM) above += mass[hi--]!
  const kept = mass.slice(lo, hi + 1)
  kept[0]! += carried
  kept[kept.length - 1]! += above
  return { offset: lo, mass: kept }
}

/** Work a computation spent, in cells written plus multiply-adds: what {@link BUDGET} bounds. */
interface Meter {
  work: number
}

function convolve(a: Pmf, b: Pmf, meter?: Meter): Pmf {
  const mass = new Float64Array(a.mass.length + b.mass.length - 1)
  // Zeros skipped on both sides: a class binned onto a fine lattice is mostly zeros, and so is the sum.
  const nonzero: number[] = []
  for (let j = 0; j < b.mass.length; j++) if (b.mass[j] !== 0) nonzero.push(j)
  let products = 0
  for (let i = 0; i < a.mass.length; i++) {
    const ai = a.mass[i]!
    if (ai === 0) continue
    for (const j of nonzero) mass[i + j]! += ai * b.mass[j]!
    products += nonzero.length
  }
  if (meter) meter.work += mass.length + products
  return { offset: a.offset + b.offset, mass }
}

function upperTail(pmf: Pmf, from: number): number {
  let tail = 0
  for (let i = pmf.mass.length - 1; i >= 0 && pmf.offset + i >= from; i--) tail += pmf.mass[i]!
  return Math.min(1, tail)
}

/**
 * Hits of a guesser that hits row i with probability `chances[i]`: the Poisson-binomial
 * distribution (Chen & Liu, Statistica Sinica 7:875–892, 1997), computed as the convolution of
 * one binomial per distinct probability (rows with the same option count share one), so 10^5
 * rows over a few option counts take milliseconds rather than the O(n²) recursion.
 */
export function guesserHits(chances: readonly number[], meter?: Meter): Pmf {
  const rows = new Map<number, number>()
  for (const q of chances) rows.set(q, (rows.get(q) ?? 0) + 1)
  let pmf: Pmf = { offset: 0, mass: Float64Array.of(1) }
  for (const [q, n] of [...rows].sort((x, y) => x[0] - y[0])) {
    if (meter) meter.work += n + 1
    pmf = convolve(pmf, binomialTrimmed(n, q), meter)
  }
  return pmf
}

/** One-sided exact p-value that `hits` beats a guesser hitting row i with probability `chances[i]`: P(X ≥ hits). */
export function guesserP(hits: number, chances: readonly number[]): number {
  return upperTail(guesserHits(chances), hits)
}

/**
 * One-sided exact p-value of "no better than guessing" for accuracy: P(X ≥ hits) where X is the
 * Poisson-binomial count of hits of a uniform guesser, each decision hit with probability 1/options.
 */
export function aboveChanceP(records: readonly { gold: string; prediction: string | null; probabilities: Record<string, number> }[]): number {
  const hits = records.filter((record) => record.gold === record.prediction).length
  return guesserP(hits, records.map((record) => 1 / Math.max(1, Object.keys(record.probabilities).length)))
}

/** One gold class: its hits, and each of its decisions' chance of a hit under uniform guessing (1/options). */
export interface ClassUnderGuessing {
  hits: number
  chances: readonly number[]
}

/** The p-value of balanced accuracy against a uniform guesser, and how it was computed. */
export interface BalancedAccuracyChanceTest {
  /** P(BA_guesser ≥ observed): exact, or an upper bound on it (never smaller than the exact p). */
  p: number
  /** A lower bound on the exact p (equal to `p` when exact): the approximation's error is `p − pLower`. */
  pLower: number
  /** `exact` (every recall on one lattice), `grid` (recalls rounded up to a grid of 1/G), `hoeffding` (past the cost budget). */
  method: 'exact' | 'grid' | 'hoeffding'
  /** Cells written plus multiply-adds this test spent, as counted in its loops (≤ {@link BUDGET} on the lattice or grid). */
  work: number
}

/** Cells written plus multiply-adds one balanced-accuracy test may spend (about a tenth of a second). */
export const BUDGET = 3e7

/**
 * Exact null distribution of balanced accuracy under uniform guessing: each class's hits are
 * independent Poisson-binomial (Bin(n_c, 1/k) when its rows share k options), BA is the mean of
 * the recalls, and the sum of recalls is a convolution over classes on the lattice 1/G with G
 * the least common multiple of the class sizes (every recall x/n_c is then a whole number of
 * steps: exact). When that lattice would cost too much, each recall is rounded UP to a grid of
 * 1/G: the null is then stochastically larger, so `p` is conservative, and rounding moves the
 * sum by less than K steps, so P(grid sum ≥ observed + K steps) is a lower bound (`pLower`).
 * Past even a coarse grid (thousands of classes), Hoeffding's (1963) bound
 * exp(−2K(BA − E BA)²) on a mean of K independent [0, 1] recalls, which is never below the exact p.
 */
export function balancedAccuracyChanceTest(classes: readonly ClassUnderGuessing[]): BalancedAccuracyChanceTest {
  const k = classes.length
  if (k === 0) return { p: 1, pLower: 1, method: 'exact', work: 0 }
  const meter: Meter = { work: 0 }
  const pmfs = classes.map((c) => guesserHits(c.chances, meter))
  const sizes = classes.map((c) => c.chances.length)
  // What the loop below does on g steps, per class: bin (≤ g + 1 cells), write the new sum (≤ (c + 1)g + 1
  // cells), multiply the sum's non-zeros (≤ cg + 1) by the class's (≤ its support); then the two tails.
  const cost = (g: number) =>
    meter.work +
    2 * (k * g + 1) +
    pmfs.reduce((sum, pmf, c) => sum + pmf.mass.length + g + 1 + (c + 1) * g + 1 + (c * g + 1) * Math.min(pmf.mass.length, g + 1), 0)
  const lattice = sizes.reduce((l, n) => (l > 1e7 ? l : lcm(l, n)), 1)
  let grid = lattice <= 1e7 && cost(lattice) <= BUDGET ? lattice : 0
  const exact = grid === lattice
  if (!exact) for (let g = 1 << 16; g >= 4 && grid === 0; g >>= 1) if (cost(g) <= BUDGET) grid = g
  if (grid === 0) {
    const observed = classes.reduce((s, c, i) => s + c.hits / sizes[i]!, 0) / k
    const expected = classes.reduce((s, c, i) => s + c.chances.reduce((a, q) => a + q, 0) / sizes[i]!, 0) / k
    const p = observed <= expected ? 1 : Math.exp(-2 * k * (observed - expected) ** 2)
    return { p, pLower: 0, method: 'hoeffding', work: meter.work }
  }
  let sum: Pmf = { offset: 0, mass: Float64Array.of(1) }
  let observed = 0
  classes.forEach((c, i) => {
    const n = sizes[i]!
    const step = (x: number) => (exact ? x * (grid / n) : Math.ceil((x * grid) / n - 1e-9))
    const pmf = pmfs[i]!
    const first = step(pmf.offset)
    const binned = new Float64Array(step(pmf.offset + pmf.mass.length - 1) - first + 1)
    pmf.mass.forEach((m, x) => (binned[step(pmf.offset + x) - first]! += m))
    meter.work += binned.length + pmf.mass.length
    sum = convolve(sum, { offset: first, mass: binned }, meter)
    observed += (c.hits * grid) / n
  })
  // Observed sum in grid steps; exact lattices give whole numbers, the tolerance absorbs rounding.
  const p = upperTail(sum, Math.ceil(observed - 1e-6))
  const pLower = exact ? p : upperTail(sum, Math.ceil(observed + k - 1e-6))
  meter.work += 2 * sum.mass.length
  return { p, pLower, method: exact ? 'exact' : 'grid', work: meter.work }
}

function lcm(a: number, b: number): number {
  let x = a
  let y = b
  while (y !== 0) [x, y] = [y, x % y]
  return (a / x) * b
}
