/**
 * Betting confidence sequences and the betting McNemar e-process, checked against oracles
 * written apart from the code: the exact martingale identity E[K_n(p)] = 1 summed over the
 * binomial law, simulated coverage at every look (P(∃t: p ∉ CS_t) ≤ α per end), the type-I
 * error of the e-process under H0, and monotonicity.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { logFactorial } from '../../../src/core/math/binomial.ts'
import { bettingRateBounds, logCapitalAbove, logCapitalBelow, PooledClassBetting } from '../../../src/core/math/betting.ts'
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
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(7000 + run)
      const p = [0.05, 0.5, 0.7, 0.93][run % 4]!
      let s = 0
      let missedLow = false
      let missedHigh = false
      for (let n = 1; n <= 1000; n++) {
        if (random() < p) s++
        if (n % 20 !== 0) continue
        const { lower, upper } = bettingRateBounds(s, n, alpha, alpha)
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

describe('pooled class betting (the mean of class rates)', () => {
  /** A run of unequal classes; `schedule` picks each step's class (never from the outcomes). */
  function missRates(schedule: (i: number, random: () => number) => number, runs: number, alpha: number, reference: number) {
    const recalls = [0.9, 0.55, 0.75, 0.3]
    const shares = [0.4, 0.3, 0.2, 0.1]
    const truth = recalls.reduce((a, b) => a + b, 0) / recalls.length
    let low = 0
    let high = 0
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(9100 + run)
      const bets = new PooledClassBetting(shares, reference)
      let missedLow = false
      let missedHigh = false
      for (let i = 0; i < 400; i++) {
        const k = schedule(i, random)
        bets.observe(k, random() < recalls[k]!)
        if (i % 20 !== 19) continue
        const { lower, upper } = bets.bounds(alpha, alpha)
        missedLow ||= lower > truth
        missedHigh ||= upper < truth
        bets.bet()
      }
      if (missedLow) low++
      if (missedHigh) high++
    }
    return { low: low / runs, high: high / runs }
  }

  it('holds the true mean at every look, each end in ≥ 1 − α of runs, with classes drawn at random', () => {
    const draw = (_: number, random: () => number) => {
      const u = random()
      return u < 0.4 ? 0 : u < 0.7 ? 1 : u < 0.9 ? 2 : 3
    }
    // Bets aimed at the truth (the hardest case: they grow fastest near it) and away from it.
    for (const reference of [0.62, 0.8]) {
      const { low, high } = missRates(draw, 150, 0.1, reference)
      expect(low).toBeLessThanOrEqual(slack(0.1, 150))
      expect(high).toBeLessThanOrEqual(slack(0.1, 150))
    }
  })

  it('holds it too when the classes come in a fixed interleaved schedule', () => {
    const cycle = [0, 1, 0, 2, 1, 0, 3, 1, 0, 2]
    const { low, high } = missRates((i) => cycle[i % cycle.length]!, 150, 0.1, 0.62)
    expect(low).toBeLessThanOrEqual(slack(0.1, 150))
    expect(high).toBeLessThanOrEqual(slack(0.1, 150))
  })

  it('a class never seen may be anywhere; a class always right or always wrong stays bounded', () => {
    const bets = new PooledClassBetting([0.5, 0.3, 0.2], 0.7)
    for (let look = 0; look < 10; look++) {
      for (let i = 0; i < 20; i++) bets.observe(0, true)
      for (let i = 0; i < 10; i++) bets.observe(1, false)
      bets.bet()
    }
    const { lower, upper } = bets.bounds(0.05, 0.05)
    // Class 2 unseen: the mean may reach (1 + r1 + 1)/3 and fall to (r0 + 0 + 0)/3.
    expect(upper).toBeGreaterThanOrEqual(2 / 3 - 1e-9)
    expect(lower).toBeLessThanOrEqual(1 / 3 + 1e-9)
    expect(lower).toBeGreaterThanOrEqual(0)
    expect(upper).toBeLessThanOrEqual(1)
  })

  it('the monitor decides a clear balanced-accuracy regression after a fraction of the set, a fair one never', () => {
    const labelled = ['a', 'b', 'c', 'd'].flatMap((gold, k) => Array.from({ length: [40, 30, 20, 10][k]! }, () => ({ criterion: 'q', gold })))
    const run = (rate: number, seed: number) => {
      const random = mulberry32(seed)
      const monitor = new SequentialMonitor({ balancedAccuracy: 0.7 }, 0.05, labelled)
      for (let n = 10; n <= 1000; n += 10) {
        for (let i = 0; i < 10; i++) {
          const u = random()
          const k = u < 0.4 ? 0 : u < 0.7 ? 1 : u < 0.9 ? 2 : 3
          monitor.observe({ criterion: 'q', gold: 'abcd'[k]!, hit: random() < rate + [0.1, -0.1, 0.05, -0.05][k]!, consistent: null, circular: null })
        }
        const look = monitor.look()
        if (look.verdicts.balancedAccuracy !== 'undecided') return { n, verdict: look.verdicts.balancedAccuracy }
      }
      return { n: 1000, verdict: 'undecided' }
    }
    const regression = run(0.55, 1)
    expect(regression.verdict).toBe('fail')
    expect(regression.n).toBeLessThan(400)
    expect(run(0.85, 2).verdict).toBe('pass')
  })
})

describe('McNemar e-processes (uniform and half-normal mixtures over stakes)', () => {
  it('crosses 1/α under H0 (a pair goes the bad way with chance ½ or less) in ≤ α of runs', () => {
    const alpha = 0.05
    const runs = 400
    for (const [theta, eValue] of [[0.5, mcnemarEValue], [0.4, mcnemarEValue], [0.5, mcnemarBettingEValue], [0.4, mcnemarBettingEValue]] as const) {
      let crossed = 0
      for (let run = 0; run < runs; run++) {
        const random = mulberry32(4200 + run)
        let w = 0
        let b = 0
        for (let i = 0; i < 500; i++) {
          if (random() < theta) w++
          else b++
          if (eValue(w, b) >= 1 / alpha) {
            crossed++
            break
          }
        }
      }
      expect(crossed / runs).toBeLessThanOrEqual(slack(alpha, runs))
    }
  })

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
