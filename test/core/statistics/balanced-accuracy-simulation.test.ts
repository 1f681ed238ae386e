/**
 * The balanced-accuracy interval and its test against a uniform guesser, checked against oracles
 * written here from first principles (Wilson's score formula solved as a quadratic, MOVER from
 * Zou & Donner's definition, the guesser's distribution by brute-force enumeration of every
 * outcome): exact coverage by enumeration, seeded simulated coverage, mean width, monotonicity,
 * and the test's size and power. Nothing here imports a formula from src.
 */
import { describe, expect, it } from 'vitest'
import { balancedAccuracyBounds } from '../../../src/core/statistics/balanced-accuracy-interval.ts'
import { balancedAccuracyChanceTest } from '../../../src/core/statistics/above-chance.ts'

const Z = 1.959963984540054 // Φ⁻¹(0.975)

/** Wilson (1927): the p with (x − n p)² = z² n p (1 − p), the two roots of a quadratic. */
function wilsonOracle(x: number, n: number): [number, number] {
  const a = n * n + Z * Z * n
  const b = -(2 * n * x + Z * Z * n)
  const c = x * x
  const root = Math.sqrt(Math.max(0, b * b - 4 * a * c))
  return [x === 0 ? 0 : (-b - root) / (2 * a), x === n ? 1 : (-b + root) / (2 * a)]
}

/** MOVER (Zou & Donner 2008) for the mean of K independent proportions, from its definition. */
function moverOracle(counts: readonly (readonly [number, number])[]): [number, number] {
  const k = counts.length
  const est = counts.map(([x, n]) => x / n)
  const mean = est.reduce((s, p) => s + p, 0) / k
  let lo = 0
  let hi = 0
  counts.forEach(([x, n], i) => {
    const [l, u] = wilsonOracle(x, n)
    lo += ((est[i]! - l) / k) ** 2
    hi += ((u - est[i]!) / k) ** 2
  })
  return [mean - Math.sqrt(lo), mean + Math.sqrt(hi)]
}

function binomialPmf(n: number, p: number): number[] {
  const out: number[] = []
  let choose = 1
  for (let x = 0; x <= n; x++) {
    out.push(choose * p ** x * (1 - p) ** (n - x))
    choose = (choose * (n - x)) / (x + 1)
  }
  return out
}

/** mulberry32, written out again so the simulation does not lean on src. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const code = (counts: readonly (readonly [number, number])[]) => balancedAccuracyBounds(counts, 0.95)

describe('the balanced-accuracy interval (MOVER-Wilson) against an independent oracle', () => {
  it('equals MOVER-Wilson to 1e-12 on every outcome of small classes (so its width is MOVER-Wilson’s)', () => {
    for (const sizes of [[1], [2, 3], [4, 4, 4], [1, 7, 20]])
      for (let trial = 0; trial < 60; trial++) {
        const random = rng(trial + 17 * sizes.length)
        const counts = sizes.map((n) => [Math.floor(random() * (n + 1)), n] as const)
        const [lo, hi] = moverOracle(counts)
        const got = code(counts)
        expect(got.lower).toBeCloseTo(Math.max(0, lo), 12)
        expect(got.upper).toBeCloseTo(Math.min(1, hi), 12)
      }
  })

  it('exact coverage over every outcome of two classes of 2..20 at rates 0.5..1: mean ≥ 94%, every size pair ≥ 93% on average', () => {
    const sizes = [2, 3, 4, 5, 8, 12, 20]
    const rates = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1]
    let total = 0
    let cells = 0
    let worstPair = 1
    let widthCode = 0
    let widthOracle = 0
    for (const n1 of sizes)
      for (const n2 of sizes) {
        if (n2 < n1) continue
        let pairCoverage = 0
        let pairCells = 0
        for (const p1 of rates)
          for (const p2 of rates) {
            const truth = (p1 + p2) / 2
            const a = binomialPmf(n1, p1)
            const b = binomialPmf(n2, p2)
            let coverage = 0
            for (let x = 0; x <= n1; x++)
              for (let y = 0; y <= n2; y++) {
                const pr = a[x]! * b[y]!
                if (pr === 0) continue
                const counts = [[x, n1], [y, n2]] as const
                const got = code(counts)
                if (got.lower <= truth + 1e-12 && truth <= got.upper + 1e-12) coverage += pr
                const [lo, hi] = moverOracle(counts)
                widthCode += pr * (got.upper - got.lower)
                widthOracle += pr * (Math.min(1, hi) - Math.max(0, lo))
              }
            pairCoverage += coverage
            pairCells++
          }
        worstPair = Math.min(worstPair, pairCoverage / pairCells)
        total += pairCoverage
        cells += pairCells
      }
    // Figures for the docs: mean coverage 0.949, worst size pair's mean 0.93x.
    expect(total / cells).toBeGreaterThanOrEqual(0.94)
    expect(worstPair).toBeGreaterThanOrEqual(0.93)
    expect(widthCode).toBeLessThanOrEqual(widthOracle * (1 + 1e-9))
  })

  // Seeded simulation: K classes of 2..20 decisions at true recalls drawn from 0.5..1. Measured
  // (20 000 runs): coverage 94.7% (K = 2), 94.0% (K = 3), 92.6% (K = 9); the old percentile
  // bootstrap with its Clopper–Pearson–Bonferroni fallback: 93.6% and 93.7% at K = 2 and 9, 11%
  // and 12% wider. MOVER-Wilson under-covers most with many small classes near 1 (89% at K = 9,
  // recalls 0.9..1), where the percentile bootstrap did no better (88%).
  it.each([
    [3, 0.93],
    [9, 0.92],
  ])('seeded simulation, %i classes of 2..20 at rates 0.5..1: coverage ≥ %d, mean width ≤ MOVER-Wilson’s', (classes, floor) => {
    const random = rng(2008)
    const runs = 4000
    let covered = 0
    let width = 0
    let widthOracle = 0
    for (let r = 0; r < runs; r++) {
      const truths = Array.from({ length: classes }, () => 0.5 + 0.5 * random())
      const counts = truths.map((p) => {
        const n = 2 + Math.floor(random() * 19)
        let x = 0
        for (let i = 0; i < n; i++) if (random() < p) x++
        return [x, n] as const
      })
      const truth = truths.reduce((s, p) => s + p, 0) / classes
      const got = code(counts)
      if (got.lower <= truth && truth <= got.upper) covered++
      width += got.upper - got.lower
      const [lo, hi] = moverOracle(counts)
      widthOracle += Math.min(1, hi) - Math.max(0, lo)
    }
    expect(covered / runs).toBeGreaterThanOrEqual(floor)
    expect(width / runs).toBeLessThanOrEqual(widthOracle / runs + 1e-9)
  })

  it('monotone, exhaustively over three classes of up to 6, 6 and 3 decisions: one more miss never raises a bound, one more hit never lowers one', () => {
    for (let n1 = 1; n1 <= 6; n1++)
      for (let n2 = 1; n2 <= 6; n2++)
        for (let n3 = 1; n3 <= 3; n3++)
          for (let h1 = 0; h1 <= n1; h1++)
            for (let h2 = 0; h2 <= n2; h2++)
              for (let h3 = 0; h3 <= n3; h3++) {
                const counts: [number, number][] = [[h1, n1], [h2, n2], [h3, n3]]
                const here = code(counts)
                for (let c = 0; c < 3; c++) {
                  const miss = code(counts.map(([h, n], i) => (i === c ? [h, n + 1] : [h, n])))
                  const hit = code(counts.map(([h, n], i) => (i === c ? [h + 1, n + 1] : [h, n])))
                  expect(miss.lower).toBeLessThanOrEqual(here.lower + 1e-12)
                  expect(miss.upper).toBeLessThanOrEqual(here.upper + 1e-12)
                  expect(hit.lower).toBeGreaterThanOrEqual(here.lower - 1e-12)
                  expect(hit.upper).toBeGreaterThanOrEqual(here.upper - 1e-12)
                }
              }
  })
})

/** P(mean recall of a uniform guesser ≥ observed), by enumerating every outcome of every class. */
function guesserOracle(classes: readonly { hits: number; options: readonly number[] }[]): number {
  // Each class's hit count distribution by its own Poisson-binomial recursion over rows.
  const perClass = classes.map(({ options }) => {
    let dist = [1]
    for (const k of options) {
      const q = 1 / k
      const next = new Array<number>(dist.length + 1).fill(0)
      dist.forEach((m, x) => {
        next[x]! += m * (1 - q)
        next[x + 1]! += m * q
      })
      dist = next
    }
    return dist
  })
  const observed = classes.reduce((s, c) => s + c.hits / c.options.length, 0)
  let p = 0
  const walk = (c: number, sum: number, mass: number) => {
    if (c === classes.length) {
      if (sum >= observed - 1e-9) p += mass
      return
    }
    perClass[c]!.forEach((m, x) => walk(c + 1, sum + x / classes[c]!.options.length, mass * m))
  }
  walk(0, 0, 1)
  return p
}

const asTest = (classes: readonly { hits: number; options: readonly number[] }[]) =>
  balancedAccuracyChanceTest(classes.map((c) => ({ hits: c.hits, chances: c.options.map((k) => 1 / k) })))

describe('balanced accuracy against a uniform guesser: the exact test', () => {
  it('equals brute-force enumeration on mixed class sizes and option counts', () => {
    const random = rng(7)
    for (let trial = 0; trial < 150; trial++) {
      const classes = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const options = Array.from({ length: 1 + Math.floor(random() * 7) }, () => 2 + Math.floor(random() * 4))
        return { hits: Math.floor(random() * (options.length + 1)), options }
      })
      const test = asTest(classes)
      expect(test.method).toBe('exact')
      expect(test.p).toBeCloseTo(guesserOracle(classes), 12)
    }
  })

  it('a perfect reader on 36 decisions over 9 classes of 4 (4 options): p = 4^-36', () => {
    const classes = Array.from({ length: 9 }, () => ({ hits: 4, options: [4, 4, 4, 4] }))
    expect(asTest(classes).p).toBeCloseTo(0.25 ** 36, 30)
    expect(asTest(classes).p / 0.25 ** 36).toBeCloseTo(1, 9)
  })

  it('past the exact lattice, the grid bounds bracket the exact p (class sizes 83, 89, 97: lattice 716 539)', () => {
    const classes = [83, 89, 97].map((n, i) => ({ hits: Math.round(n * (0.3 + 0.02 * i)), options: Array<number>(n).fill(4) }))
    const test = asTest(classes)
    expect(test.method).toBe('grid')
    const exact = guesserOracle(classes)
    expect(test.p).toBeGreaterThanOrEqual(exact - 1e-12)
    expect(test.pLower).toBeLessThanOrEqual(exact + 1e-12)
    expect(test.p - test.pLower).toBeLessThan(0.01)
  })

  it('size ≤ α under the null and power against readers (seeded simulation, 2–6 classes of 2..12, 2–5 options)', () => {
    const random = rng(1997)
    const runs = 1500
    const alpha = 0.025
    const rejected = { null: 0, reader60: 0, reader80: 0 }
    for (let r = 0; r < runs; r++) {
      const k = 2 + Math.floor(random() * 4)
      // Sizes whose lattice stays small (12), so 4500 exact tests take a second or two.
      const sizes = Array.from({ length: 2 + Math.floor(random() * 5) }, () => [2, 3, 4, 6, 12][Math.floor(random() * 5)]!)
      for (const [name, rate] of [['null', 1 / k], ['reader60', 0.6], ['reader80', 0.8]] as const) {
        const classes = sizes.map((n) => {
          let hits = 0
          for (let i = 0; i < n; i++) if (random() < Math.max(rate, 1 / k)) hits++
          return { hits, chances: Array<number>(n).fill(1 / k) }
        })
        if (balancedAccuracyChanceTest(classes).p < alpha) rejected[name]++
      }
    }
    // Exact test: size ≤ α; 3.5 binomial standard errors of Monte Carlo slack.
    expect(rejected.null / runs).toBeLessThanOrEqual(alpha + 3.5 * Math.sqrt((alpha * (1 - alpha)) / runs))
    console.log(`chance test at α = ${alpha}: size ${rejected.null / runs}, power ${rejected.reader60 / runs} (recall 0.6), ${rejected.reader80 / runs} (recall 0.8)`)
    expect(rejected.reader80 / runs).toBeGreaterThan(rejected.reader60 / runs)
    expect(rejected.reader80 / runs).toBeGreaterThan(0.8)
  })
})
