/**
 * The mixture of the rate bounds, bets on effects: each bet the likelihood ratio of m + δ
 * against m, mixed by a half-normal over δ. Checked against oracles written apart from the
 * code: the capital rebuilt from that definition, the exact identity E[K_n(m)] = 1 summed over
 * Binomial(n, m) at rates with little room (0.02, 0.17, 0.98), E[K] ≤ 1 for the stratified
 * capital there, simulated coverage at those rates; and the cost: a clear effect near a small
 * rate (order consistency 0.02 under a 0.17 threshold) decided in fewer looks than the
 * previous weights (a half-normal over the fraction of the largest stake) needed.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { onceByCounts } from '../../helpers/memo.ts'
import { logFactorial } from '../../../src/core/math/binomial.ts'
import {
  bettingRateBounds,
  EFFECT_BETS,
  FRACTION_BETS,
  logCapitalAbove,
  logCapitalBelow,
  logStratifiedCapitalAbove,
  logStratifiedCapitalBelow,
  stratifiedRateBounds,
} from '../../../src/core/math/betting.ts'
import { SequentialMonitor } from '../../../src/core/thresholds/sequential/monitor.ts'

const slack = (alpha: number, runs: number) => alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs)
const logPmf = (k: number, n: number, p: number) =>
  logFactorial(n) - logFactorial(k) - logFactorial(n - k) + (k > 0 ? k * Math.log(p) : 0) + (n - k > 0 ? (n - k) * Math.log1p(-p) : 0)

describe('bets on effects (the default mixture of the rate bounds)', () => {
  it('is the mixture of likelihood ratios of m + δ against m, δ half-normal of scale 0.15 on squared cell midpoints', () => {
    // Rebuilt from the definition: 32 effects δ = u², u the midpoints of 32 cells; weight ∝ density × cell width in δ (∝ u);
    // the alternative is m + δ, or m + (63/64)(1 − m) when m + δ would pass 1.
    const u = Array.from({ length: 32 }, (_, j) => (j + 0.5) / 32)
    const w = u.map((x) => Math.exp(-(x ** 4) / (2 * 0.15 ** 2)) * x)
    const total = w.reduce((a, b) => a + b, 0)
    const logCapital = (s: number, n: number, m: number) => {
      const terms = u.map((x, j) => {
        const q = Math.min(m + x * x, m + (63 / 64) * (1 - m))
        return Math.log(w[j]! / total) + s * Math.log(q / m) + (n - s) * Math.log((1 - q) / (1 - m))
      })
      const top = Math.max(...terms)
      return top + Math.log(terms.reduce((sum, t) => sum + Math.exp(t - top), 0))
    }
    for (const [s, n] of [[0, 0], [3, 10], [10, 10], [0, 25], [47, 60], [700, 1000]] as const)
      for (const m of [0.02, 0.17, 0.5, 0.83, 0.98]) {
        expect(logCapitalAbove(s, n, m)).toBeCloseTo(logCapital(s, n, m), 9)
        expect(logCapitalBelow(s, n, m)).toBeCloseTo(logCapital(n - s, n, 1 - m), 9)
      }
  })

  it('is a fair game at the true rate, rates with little room included: E[K_n(p)] = 1, summed over Binomial(n, p)', () => {
    for (const bets of [EFFECT_BETS, FRACTION_BETS])
      for (const p of [0.005, 0.02, 0.17, 0.2, 0.8, 0.83, 0.98])
        for (const n of [1, 10, 40, 200]) {
          let above = 0
          let below = 0
          for (let s = 0; s <= n; s++) {
            above += Math.exp(logPmf(s, n, p) + logCapitalAbove(s, n, p, bets))
            below += Math.exp(logPmf(s, n, p) + logCapitalBelow(s, n, p, bets))
          }
          expect(above).toBeCloseTo(1, 9)
          expect(below).toBeCloseTo(1, 9)
        }
  })

  it('the stratified capital at cells whose weighted mean is a rate with little room: E[K_R(m)] ≤ 1', () => {
    // Stakes 2 : 1 (weights ⅔, ⅓): rates (0.05, 0.41) have mean 0.17, rates (0.99, 0.85) mean 0.943….
    for (const [r0, r1] of [[0.05, 0.41], [0.99, 0.85], [0.01, 0.04]] as const) {
      const m = (2 * r0 + r1) / 3
      for (const R of [1, 6, 25]) {
        let above = 0
        let below = 0
        for (let h0 = 0; h0 <= R; h0++)
          for (let h1 = 0; h1 <= R; h1++) {
            const p = Math.exp(logPmf(h0, R, r0) + logPmf(h1, R, r1))
            const strata = [{ successes: h0, n: R, stake: 2 }, { successes: h1, n: R, stake: 1 }]
            above += p * Math.exp(logStratifiedCapitalAbove(strata, m))
            below += p * Math.exp(logStratifiedCapitalBelow(strata, m))
          }
        expect(above).toBeLessThanOrEqual(1 + 1e-9)
        expect(below).toBeLessThanOrEqual(1 + 1e-9)
      }
    }
  })

  it('with equal stakes the stratified capital is the pooled rate\'s, for either mixture', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(40), fc.nat(40)), { minLength: 1, maxLength: 4 }), fc.double({ min: 0.001, max: 0.999, noNaN: true }), (cells, m) => {
        const strata = cells.map(([a, b]) => ({ successes: Math.min(a, b), n: Math.max(a, b), stake: 3 }))
        const s = strata.reduce((t, c) => t + c.successes, 0)
        const n = strata.reduce((t, c) => t + c.n, 0)
        for (const bets of [EFFECT_BETS, FRACTION_BETS]) {
          expect(logStratifiedCapitalAbove(strata, m, bets)).toBeCloseTo(logCapitalAbove(s, n, m, bets), 9)
          expect(logStratifiedCapitalBelow(strata, m, bets)).toBeCloseTo(logCapitalBelow(s, n, m, bets), 9)
        }
      }),
    )
  })

  it('each end misses a true rate with little room at some look in ≤ α of seeded runs', () => {
    const alpha = 0.1
    const runs = 240
    let low = 0
    let high = 0
    // The bounds are a pure function of (s, n), which the runs of one rate revisit.
    const bounds = onceByCounts((s, n) => bettingRateBounds(s, n, alpha, alpha))
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(31_000 + run)
      const p = [0.02, 0.17, 0.83, 0.98][run % 4]!
      let s = 0
      let missedLow = false
      let missedHigh = false
      for (let n = 1; n <= 400; n++) {
        if (random() < p) s++
        if (n % 10 !== 0) continue
        const { lower, upper } = bounds(s, n)
        missedLow ||= lower > p
        missedHigh ||= upper < p
      }
      if (missedLow) low++
      if (missedHigh) high++
    }
    expect(low / runs).toBeLessThanOrEqual(slack(alpha, runs))
    expect(high / runs).toBeLessThanOrEqual(slack(alpha, runs))
  })
})

describe('a clear effect near a small rate: fewer looks than the previous weights', () => {
  /** Decisions scored (a look every 10) until order consistency fails its 0.17 threshold, the true rate 0.02; the monitor's defaults. */
  function decisionsToFail(seed: number, consistent: (random: () => number) => boolean): number {
    const random = mulberry32(seed)
    const monitor = new SequentialMonitor({ orderConsistency: 0.17 }, 0.05, [{ criterion: 'k', gold: 'a' }])
    for (let n = 10; n <= 1000; n += 10) {
      for (let i = 0; i < 10; i++) monitor.observe({ criterion: 'k', gold: 'a', hit: true, consistent: consistent(random), circular: null })
      if (monitor.look().verdicts.orderConsistency === 'fail') return n
    }
    return Infinity
  }

  it('the run fails order consistency 0.02 under 0.17 after ~40 decisions (the previous weights: ~60)', () => {
    // Never consistent: 30 decisions (the previous weights: 50); once in the first ten: 40 (60).
    expect(decisionsToFail(1, () => false)).toBe(30)
    let seen = 0
    expect(decisionsToFail(1, () => ++seen === 3)).toBe(40)
    const runs = 200
    let total = 0
    for (let run = 0; run < runs; run++) total += decisionsToFail(700 + run, (random) => random() < 0.02)
    expect(total / runs).toBeLessThan(45)
  })

  it('the bounds and the stratified bounds rule out 0.17 sooner with bets on effects than with the previous weights, on the same outcomes', () => {
    type Bets = typeof EFFECT_BETS
    // Outcomes of rate 0.02 in rounds of two cells (stakes 2 and 1), a look every 5 rounds: the upper end of the rate, pooled or stratified.
    const pooled = (cells: number[][], bets: Bets) => bettingRateBounds(cells[0]![0]! + cells[1]![0]!, cells[0]![1]! + cells[1]![1]!, 0.05, 0.05, bets).upper
    const stratified = (cells: number[][], bets: Bets) =>
      stratifiedRateBounds(cells.map(([successes, n], k) => ({ successes: successes!, n: n!, stake: 2 - k })), 0.05, 0.05, bets).upper
    const decisionsToRuleOut = (upper: (cells: number[][], bets: Bets) => number, bets: Bets, seed: number) => {
      const random = mulberry32(seed)
      const cells = [[0, 0], [0, 0]]
      for (let round = 1; round <= 500; round++) {
        for (const cell of cells) (cell[0]! += random() < 0.02 ? 1 : 0), cell[1]!++
        if (round % 5 === 0 && upper(cells, bets) < 0.17) return 2 * round
      }
      return Infinity
    }
    for (const [name, upper] of [['pooled', pooled], ['stratified', stratified]] as const) {
      let effects = 0
      let fractions = 0
      for (let run = 0; run < 100; run++) {
        effects += decisionsToRuleOut(upper, EFFECT_BETS, 900 + run) / 100
        fractions += decisionsToRuleOut(upper, FRACTION_BETS, 900 + run) / 100
      }
      expect(effects, name).toBeLessThan(0.75 * fractions)
    }
  })

  it('the stratified order decides it too: the monitor with balanced accuracy declared', () => {
    const labelled = ['a', 'b'].flatMap((gold) => Array.from({ length: 500 }, () => ({ criterion: 'q', gold })))
    const rounds = (seed: number) => {
      const random = mulberry32(seed)
      const monitor = new SequentialMonitor({ balancedAccuracy: 0.1, orderConsistency: 0.17 }, 0.05, labelled)
      for (let round = 1; round <= 500; round++) {
        monitor.observeRound(['a', 'b'].map((gold) => ({ criterion: 'q', gold, hit: true, consistent: random() < 0.02, circular: null })))
        if (round % 5 === 0 && monitor.look().verdicts.orderConsistency === 'fail') return 2 * round
      }
      return Infinity
    }
    let total = 0
    for (let run = 0; run < 100; run++) total += rounds(1300 + run)
    expect(total / 100).toBeLessThan(45)
  })
})
