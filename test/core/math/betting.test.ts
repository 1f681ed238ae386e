/**
 * Betting confidence sequences and the betting McNemar e-process, checked against oracles
 * written apart from the code: the exact martingale identity E[K_n(p)] = 1 summed over the
 * binomial law, simulated coverage at every look (P(∃t: p ∉ CS_t) ≤ α per end), the type-I
 * error of the e-process under H0, and monotonicity.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { onceByCounts } from '../../helpers/memo.ts'
import { logFactorial } from '../../../src/core/math/binomial.ts'
import { bettingRateBounds, logCapitalAbove, logCapitalBelow, logStratifiedCapitalAbove, logStratifiedCapitalBelow, stratifiedRateBounds } from '../../../src/core/math/betting.ts'
import { Strata, stratifiedOrder } from '../../../src/core/thresholds/sequential/strata.ts'
import { betaMixtureConfidenceSequence } from '../../../src/core/math/confidence-sequence.ts'
import { mcnemarBettingEValue, mcnemarEValue } from '../../../src/core/math/sequential-mcnemar.ts'
import { SequentialMonitor } from '../../../src/core/thresholds/sequential/monitor.ts'

const slack = (alpha: number, runs: number) => alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs)

describe('betting capital for a Bernoulli rate', () => {
  it('is a fair game at the true rate: E[K_n(p)] = 1 exactly, summed over Binomial(n, p)', () => {
    for (const p of [0.03, 0.3, 0.5, 0.7, 0.97])
      for (const n of [1, 2, 7, 30, 120]) {
        let above = 0
        let below = 0
        for (let s = 0; s <= n; s++) {
          const logP = logFactorial(n) - logFactorial(s) - logFactorial(n - s) + s * Math.log(p) + (n - s) * Math.log1p(-p)
          above += Math.exp(logP + logCapitalAbove(s, n, p))
          below += Math.exp(logP + logCapitalBelow(s, n, p))
        }
        expect(above).toBeCloseTo(1, 9)
        expect(below).toBeCloseTo(1, 9)
      }
  })

  it('the capital against "above m" never grows with m, and the bounds hold the observed rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.001, max: 0.999, noNaN: true }), fc.double({ min: 1e-6, max: 0.5, noNaN: true }), (n, share, m, alpha) => {
        const s = Math.round(share * n)
        expect(logCapitalAbove(s, n, Math.min(0.999, m + 0.01))).toBeLessThanOrEqual(logCapitalAbove(s, n, m) + 1e-9)
        const { lower, upper } = bettingRateBounds(s, n, alpha, alpha)
        expect(lower).toBeGreaterThanOrEqual(0)
        expect(upper).toBeLessThanOrEqual(1)
        expect(lower).toBeLessThanOrEqual(s / n + 1e-12)
        expect(upper).toBeGreaterThanOrEqual(s / n - 1e-12)
        // Just outside each end the capital has reached 1/α.
        if (lower > 1e-9) expect(logCapitalAbove(s, n, lower * (1 - 1e-7))).toBeGreaterThanOrEqual(Math.log(1 / alpha) - 1e-6)
        if (upper < 1 - 1e-9) expect(logCapitalBelow(s, n, upper + (1 - upper) * 1e-7)).toBeGreaterThanOrEqual(Math.log(1 / alpha) - 1e-6)
      }),
      { numRuns: 200 },
    )
  })

  it('is narrower with more data and at a larger α; tighter than the Beta mixture on a 15-point effect', () => {
    const wide = bettingRateBounds(70, 100, 0.01, 0.01)
    const narrow = bettingRateBounds(70, 100, 0.1, 0.1)
    const more = bettingRateBounds(700, 1000, 0.01, 0.01)
    expect(wide.upper - wide.lower).toBeGreaterThan(narrow.upper - narrow.lower)
    expect(more.upper - more.lower).toBeLessThan(wide.upper - wide.lower)
    // 55 of 100 against a 0.7 bound: the betting upper end (α one-sided) is below the mixture's (α two-sided).
    expect(bettingRateBounds(55, 100, 0.05, 0.05).upper).toBeLessThan(betaMixtureConfidenceSequence(55, 100, 0.05).upper)
    expect(bettingRateBounds(0, 0, 0.05, 0.05)).toEqual({ lower: 0, upper: 1 })
    expect(() => bettingRateBounds(3, 2, 0.05, 0.05)).toThrow(RangeError)
  })

  it('each end misses the true rate at some look in ≤ α of seeded runs', () => {
    const alpha = 0.1
    const runs = 300
    let low = 0
    let high = 0
    // The bounds are a pure function of (s, n), which the runs of one rate revisit.
    const bounds = onceByCounts((s, n) => bettingRateBounds(s, n, alpha, alpha))
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(7000 + run)
      const p = [0.05, 0.5, 0.7, 0.93][run % 4]!
      let s = 0
      let missedLow = false
      let missedHigh = false
      for (let n = 1; n <= 1000; n++) {
        if (random() < p) s++
        if (n % 20 !== 0) continue
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

describe('stratified betting (a weighted mean of cell rates, from complete rounds)', () => {
  const binomialPmf = (k: number, n: number, p: number) =>
    Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) + (k > 0 ? k * Math.log(p) : 0) + (n - k > 0 ? (n - k) * Math.log(1 - p) : 0))

  it('is a fair game or worse at any rates whose weighted mean is m: E[K_R(m)] ≤ 1, summed over the binomial laws', () => {
    // Two cells, one draw each per round, stakes 2 : 1 (weights ⅔, ⅓); rates with mean exactly m.
    const stakes = [2, 1]
    for (const [r0, r1] of [
      [0.9, 0.3],
      [0.5, 0.9],
      [0.7, 0.7],
      [0.6, 0.9],
    ] as const) {
      const m = (2 * r0 + r1) / 3
      for (const R of [1, 5, 17]) {
        let above = 0
        let below = 0
        for (let h0 = 0; h0 <= R; h0++)
          for (let h1 = 0; h1 <= R; h1++) {
            const p = binomialPmf(h0, R, r0) * binomialPmf(h1, R, r1)
            const strata = [
              { successes: h0, n: R, stake: stakes[0]! },
              { successes: h1, n: R, stake: stakes[1]! },
            ]
            above += p * Math.exp(logStratifiedCapitalAbove(strata, m))
            below += p * Math.exp(logStratifiedCapitalBelow(strata, m))
          }
        expect(above).toBeLessThanOrEqual(1 + 1e-9)
        expect(below).toBeLessThanOrEqual(1 + 1e-9)
      }
    }
  })

  it('with equal stakes it is the pooled rate of the same outcomes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(30), fc.nat(30)), { minLength: 1, maxLength: 5 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), (cells, m) => {
        const strata = cells.map(([a, b]) => ({ successes: Math.min(a, b), n: Math.max(a, b), stake: 1 }))
        const s = strata.reduce((t, c) => t + c.successes, 0)
        const n = strata.reduce((t, c) => t + c.n, 0)
        expect(logStratifiedCapitalAbove(strata, m)).toBeCloseTo(logCapitalAbove(s, n, m), 9)
        expect(stratifiedRateBounds(strata, 0.05, 0.05)).toEqual(bettingRateBounds(s, n, 0.05, 0.05))
      }),
    )
  })

  /**
   * Seeded runs over a finite set (cells of 40, 30, 20 and 10 decisions, each decision right
   * or wrong once and for all): rounds draw one decision per cell with replacement, the bounds
   * are read every 4 rounds; the truth is the set's own balanced accuracy and accuracy.
   */
  function missRates(runs: number, alpha: number, look: (strata: Strata, cells: { successes: number; n: number }[]) => Record<string, { lower: number; upper: number }>) {
    const sizes = [40, 30, 20, 10]
    const recalls = [0.9, 0.55, 0.75, 0.3]
    const misses: Record<string, { low: number; high: number }> = {}
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(9100 + run)
      const right = sizes.map((size, k) => Array.from({ length: size }, () => random() < recalls[k]!))
      const rate = (k: number) => right[k]!.filter(Boolean).length / sizes[k]!
      const truth: Record<string, number> = {
        balanced: sizes.reduce((t, _, k) => t + rate(k), 0) / sizes.length,
        pooled: right.flat().filter(Boolean).length / right.flat().length,
      }
      const labelled = sizes.flatMap((size, k) => Array.from({ length: size }, () => ({ criterion: 'q', gold: 'abcd'[k]! })))
      const strata = new Strata(labelled)
      const cells = sizes.map(() => ({ successes: 0, n: 0 }))
      const missed: Record<string, { low: boolean; high: boolean }> = {}
      for (let round = 1; round <= 120; round++) {
        sizes.forEach((size, k) => {
          const c = strata.cellOf('q', 'abcd'[k]!)!
          cells[c]!.n++
          if (right[k]![Math.floor(random() * size)]) cells[c]!.successes++
        })
        if (round % 4 !== 0) continue
        for (const [key, b] of Object.entries(look(strata, cells))) {
          const m = (missed[key] ??= { low: false, high: false })
          m.low ||= b.lower > truth[key]! + 1e-12
          m.high ||= b.upper < truth[key]! - 1e-12
        }
      }
      for (const [key, m] of Object.entries(missed)) {
        const t = (misses[key] ??= { low: 0, high: 0 })
        if (m.low) t.low++
        if (m.high) t.high++
      }
    }
    return Object.fromEntries(Object.entries(misses).map(([key, t]) => [key, { low: t.low / runs, high: t.high / runs }]))
  }

  it('holds the set\'s balanced accuracy and accuracy at every look, each end in ≥ 1 − α of runs', () => {
    const alpha = 0.1
    const rates = missRates(200, alpha, (strata, cells) => ({
      balanced: stratifiedRateBounds(cells.map((c, k) => ({ ...c, stake: strata.balancedStakes()[k]! })), alpha, alpha),
      pooled: stratifiedRateBounds(cells.map((c, k) => ({ ...c, stake: strata.pooledStakes()[k]! })), alpha, alpha),
    }))
    for (const key of ['balanced', 'pooled']) {
      expect(rates[key]!.low).toBeLessThanOrEqual(slack(alpha, 200))
      expect(rates[key]!.high).toBeLessThanOrEqual(slack(alpha, 200))
    }
  })

  it('narrows with more rounds and holds its own estimate; a cell of no stake is left out', () => {
    const at = (R: number) => stratifiedRateBounds([{ successes: Math.round(0.8 * R), n: R, stake: 1 }, { successes: Math.round(0.4 * R), n: R, stake: 3 }, { successes: 0, n: R, stake: 0 }], 0.05, 0.05)
    let width = 1
    for (const R of [4, 16, 64, 256]) {
      const b = at(R)
      const estimate = (0.8 * R * 1 + Math.round(0.4 * R) * 3) / (4 * R)
      expect(b.lower).toBeLessThanOrEqual(estimate + 1e-9)
      expect(b.upper).toBeGreaterThanOrEqual(estimate - 1e-9)
      expect(b.upper - b.lower).toBeLessThan(width)
      width = b.upper - b.lower
    }
    expect(stratifiedRateBounds([{ successes: 0, n: 0, stake: 1 }], 0.05, 0.05)).toEqual({ lower: 0, upper: 1 })
    expect(() => stratifiedRateBounds([{ successes: 3, n: 2, stake: 1 }], 0.05, 0.05)).toThrow(RangeError)
  })

  it('the monitor decides a clear balanced-accuracy regression after a fraction of the set, a clear pass too', () => {
    const labelled = ['a', 'b', 'c', 'd'].flatMap((gold, k) => Array.from({ length: [400, 300, 200, 100][k]! }, () => ({ criterion: 'q', gold })))
    const run = (rate: number, seed: number) => {
      const random = mulberry32(seed)
      const monitor = new SequentialMonitor({ balancedAccuracy: 0.7 }, 0.05, labelled)
      for (let round = 1; round <= 250; round++) {
        monitor.observeRound(['a', 'b', 'c', 'd'].map((gold, k) => ({ criterion: 'q', gold, hit: random() < rate + [0.1, -0.1, 0.05, -0.05][k]!, consistent: null, circular: null })))
        if (round % 3 !== 0) continue
        const look = monitor.look()
        if (look.verdicts.balancedAccuracy !== 'undecided') return { n: 4 * round, verdict: look.verdicts.balancedAccuracy }
      }
      return { n: 1000, verdict: 'undecided' }
    }
    const regression = run(0.55, 1)
    expect(regression.verdict).toBe('fail')
    expect(regression.n).toBeLessThan(250)
    expect(run(0.85, 2).verdict).toBe('pass')
  })

  it('the monitor counts a stratified order by whole rounds of one decision per cell', () => {
    const labelled = [{ criterion: 'q', gold: 'a' }, { criterion: 'q', gold: 'b' }]
    const monitor = new SequentialMonitor({ balancedAccuracy: 0.7 }, 0.05, labelled)
    const o = (gold: string) => ({ criterion: 'q', gold, hit: true, consistent: null, circular: null })
    expect(() => monitor.observe(o('a'))).toThrow(/whole rounds/)
    expect(() => monitor.observeRound([o('a'), o('a')])).toThrow(/one decision of each/)
    expect(() => monitor.observeRound([o('a')])).toThrow(/one decision of each/)
    expect(() => monitor.observeRound([o('a'), o('z')])).toThrow(/one decision of each/)
    // Without a joint key the order is a shuffle, counted decision by decision.
    expect(new SequentialMonitor({ accuracy: 0.7 }, 0.05, labelled).strata).toBeUndefined()
  })
})

describe('the stratified order', () => {
  it('draws one row of every cell per round, scores each row once, and is the same for the same seed', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(6), { minLength: 1, maxLength: 300 }), fc.nat(), (raw, seed) => {
        // Cells numbered densely from the raw labels (a cell of one row, many cells, one cell).
        const ids = [...new Set(raw)]
        const cells = raw.map((c) => ids.indexOf(c))
        const order = stratifiedOrder(cells, ids.length, seed)
        expect(order.roundSize).toBe(ids.length)
        expect(order.draws.length % ids.length).toBe(0)
        for (let at = 0; at < order.draws.length; at += ids.length) {
          const round = [...order.draws.subarray(at, at + ids.length)].map((r) => cells[r])
          expect(new Set(round).size).toBe(ids.length)
        }
        expect([...order.rowOrder].sort((a, b) => a - b)).toEqual(cells.map((_, r) => r))
        // The scoring order begins with the draws' rows, in the order they were first drawn.
        const first = [...new Set(order.draws)]
        expect(order.rowOrder.slice(0, first.length)).toEqual(first)
        expect(order.draws.length).toBeLessThanOrEqual(Math.max(2 * cells.length, ids.length))
        expect(stratifiedOrder(cells, ids.length, seed)).toEqual(order)
      }),
    )
  })
})

describe('McNemar e-processes (uniform and half-normal mixtures over stakes)', () => {
  it('crosses 1/α under H0 (a pair goes the bad way with chance ½ or less) in ≤ α of runs', () => {
    const alpha = 0.05
    const runs = 400
    for (const [theta, eValue] of [[0.5, mcnemarEValue], [0.4, mcnemarEValue], [0.5, mcnemarBettingEValue], [0.4, mcnemarBettingEValue]] as const) {
      // Both e-values are pure functions of the counts, which the 400 paths revisit.
      const e = onceByCounts(eValue)
      let crossed = 0
      for (let run = 0; run < runs; run++) {
        const random = mulberry32(4200 + run)
        let w = 0
        let b = 0
        for (let i = 0; i < 500; i++) {
          if (random() < theta) w++
          else b++
          if (e(w, b) >= 1 / alpha) {
            crossed++
            break
          }
        }
      }
      expect(crossed / runs).toBeLessThanOrEqual(slack(alpha, runs))
    }
  }, 300_000)

  it('grows with pairs that went the bad way and shrinks with those that went the good way', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (w, b) => {
        for (const e of [mcnemarEValue, mcnemarBettingEValue]) {
          expect(e(w + 1, b)).toBeGreaterThan(e(w, b))
          expect(e(w, b + 1)).toBeLessThan(e(w, b))
        }
      }),
      { numRuns: 200 },
    )
    expect(mcnemarBettingEValue(0, 0)).toBe(1)
    // One more one-way flip than the uniform mixture: 7 are not enough at α = 0.05, 8 are.
    expect(mcnemarBettingEValue(7, 0)).toBeLessThan(20)
    expect(mcnemarBettingEValue(8, 0)).toBeGreaterThanOrEqual(20)
  })
})
