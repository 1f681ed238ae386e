import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { onceByCounts } from '../../helpers/memo.ts'
import { logFactorial } from '../../../src/core/math/binomial.ts'
import {
  bernoulliConfidenceSequence,
  betaMixtureConfidenceSequence,
  DEFAULT_PRIOR,
  logBeta,
  logMixtureMartingale,
  meanRateConfidenceSequence,
} from '../../../src/core/math/confidence-sequence.ts'
import { lnGamma as logGamma } from '../../../src/core/math/gamma.ts'
import { mcnemarBetaMixtureEValue, mcnemarEValue, mcnemarRegressed } from '../../../src/core/math/sequential-mcnemar.ts'
import { boundsVerdict, lookStops, SequentialMonitor } from '../../../src/core/thresholds/sequential/monitor.ts'

describe('logGamma', () => {
  it('matches ln((n-1)!) and Γ(½) = √π', () => {
    for (const n of [1, 2, 3, 10, 50, 170]) expect(logGamma(n)).toBeCloseTo(logFactorial(n - 1), 9)
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12)
    expect(logGamma(0.25)).toBeCloseTo(1.2880225246980774, 12)
    expect(() => logGamma(0)).toThrow(RangeError)
  })
})

describe('betaMixtureConfidenceSequence (beta mixture, Ville)', () => {
  it('a boundary case by hand: 10 of 10 under Beta(½, ½)', () => {
    // M_10(p) = B(10.5, 0.5) / B(0.5, 0.5) / p^10; the lower bound solves M = 1/α.
    const alpha = 0.05
    const closed = Math.exp((logBeta(10.5, 0.5) - logBeta(0.5, 0.5) - Math.log(1 / alpha)) / 10)
    const { lower, upper } = betaMixtureConfidenceSequence(10, 10, alpha)
    expect(bernoulliConfidenceSequence(10, 10, alpha, DEFAULT_PRIOR)).toEqual({ lower, upper })
    expect(lower).toBeCloseTo(closed, 12)
    expect(upper).toBe(1)
    expect(logMixtureMartingale(10, 10, lower)).toBeCloseTo(Math.log(20), 9)
  })

  it('is [0, 1] before any decision and always holds the observed rate', () => {
    expect(bernoulliConfidenceSequence(0, 0, 0.05)).toEqual({ lower: 0, upper: 1 })
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 1e-6, max: 0.5, noNaN: true }), (n, share, alpha) => {
        const s = Math.round(share * n)
        const { lower, upper } = betaMixtureConfidenceSequence(s, n, alpha)
        expect(lower).toBeGreaterThanOrEqual(0)
        expect(upper).toBeLessThanOrEqual(1)
        expect(lower).toBeLessThanOrEqual(s / n + 1e-12)
        expect(upper).toBeGreaterThanOrEqual(s / n - 1e-12)
        // Just outside each end the martingale has crossed 1/α.
        if (lower > 1e-9) expect(logMixtureMartingale(s, n, lower * (1 - 1e-6))).toBeGreaterThanOrEqual(Math.log(1 / alpha) - 1e-6)
        if (upper < 1 - 1e-9) expect(logMixtureMartingale(s, n, upper + (1 - upper) * 1e-6)).toBeGreaterThanOrEqual(Math.log(1 / alpha) - 1e-6)
      }),
      { numRuns: 300 },
    )
  })

  it('is narrower at smaller confidence and with more data', () => {
    const wide = bernoulliConfidenceSequence(70, 100, 0.01)
    const narrow = bernoulliConfidenceSequence(70, 100, 0.1)
    const more = bernoulliConfidenceSequence(700, 1000, 0.01)
    expect(wide.upper - wide.lower).toBeGreaterThan(narrow.upper - narrow.lower)
    expect(more.upper - more.lower).toBeLessThan(wide.upper - wide.lower)
  })

  it('contains the true rate at every one of 1000 looks in ≥ 1 − α of seeded runs', () => {
    const alpha = 0.1
    const runs = 400
    let missed = 0
    // The sequence is a pure function of (s, n), which the runs of one rate revisit.
    const bounds = onceByCounts((s, n) => bernoulliConfidenceSequence(s, n, alpha))
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(1000 + run)
      const p = [0.05, 0.5, 0.7, 0.93][run % 4]!
      let s = 0
      for (let n = 1; n <= 1000; n++) {
        if (random() < p) s++
        if (n % 10 !== 0) continue
        const { lower, upper } = bounds(s, n)
        if (p < lower || p > upper) {
          missed++
          break
        }
      }
    }
    // Ville: P(miss at any look) ≤ α; allow 3σ of binomial noise over the runs.
    expect(missed / runs).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs))
  })

  it('refuses a bad alpha or counts', () => {
    expect(() => bernoulliConfidenceSequence(1, 2, 0)).toThrow(RangeError)
    expect(() => bernoulliConfidenceSequence(3, 2, 0.05)).toThrow(RangeError)
    expect(() => bernoulliConfidenceSequence(0.5, 2, 0.05)).toThrow(RangeError)
  })
})

describe('meanRateConfidenceSequence (joint over classes)', () => {
  it('with one class is the Bernoulli confidence sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const s = Math.round(share * n)
        const joint = meanRateConfidenceSequence([{ successes: s, n }], 0.05)
        const single = betaMixtureConfidenceSequence(s, n, 0.05)
        expect(joint.lower).toBeCloseTo(single.lower, 7)
        expect(joint.upper).toBeCloseTo(single.upper, 7)
      }),
      { numRuns: 200 },
    )
  })

  it('holds the observed mean and is narrower than the union bound over classes', () => {
    const classes = [{ successes: 80, n: 100 }, { successes: 30, n: 60 }, { successes: 9, n: 10 }]
    const { lower, upper } = meanRateConfidenceSequence(classes, 0.05)
    const observed = (0.8 + 0.5 + 0.9) / 3
    expect(lower).toBeLessThan(observed)
    expect(upper).toBeGreaterThan(observed)
    const union = classes.map(({ successes, n }) => betaMixtureConfidenceSequence(successes, n, 0.05 / 3))
    expect(lower).toBeGreaterThan(union.reduce((a, b) => a + b.lower, 0) / 3)
    expect(upper).toBeLessThan(union.reduce((a, b) => a + b.upper, 0) / 3)
  })

  it('contains the true mean of unequal classes at every look in ≥ 1 − α of seeded runs', () => {
    const alpha = 0.1
    const runs = 300
    const recalls = [0.9, 0.6, 0.75]
    const shares = [0.6, 0.3, 0.1]
    const truth = recalls.reduce((a, b) => a + b, 0) / 3
    let missed = 0
    for (let run = 0; run < runs; run++) {
      const random = mulberry32(5000 + run)
      const counts = recalls.map(() => ({ successes: 0, n: 0 }))
      for (let i = 1; i <= 600; i++) {
        const u = random()
        const k = u < shares[0]! ? 0 : u < shares[0]! + shares[1]! ? 1 : 2
        counts[k]!.n++
        if (random() < recalls[k]!) counts[k]!.successes++
        if (i % 20 !== 0) continue
        const { lower, upper } = meanRateConfidenceSequence(counts, alpha)
        if (truth < lower || truth > upper) {
          missed++
          break
        }
      }
    }
    expect(missed / runs).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs))
  })
})

describe('mcnemarEValue (sequential McNemar on the discordant pairs)', () => {
  it('the Beta mixture has the closed form by hand: 5, 6 and 7 one-way flips', () => {
    // E = 2^(n+1) · B(w+1, b+1) · P(Bin(n+1, ½) ≤ w): with b = 0, 2^(w+1)/(w+1) · (1 − 2^-(w+1)).
    expect(mcnemarBetaMixtureEValue(5, 0)).toBeCloseTo((64 / 6) * (63 / 64), 12) // 10.5
    expect(mcnemarBetaMixtureEValue(6, 0)).toBeCloseTo((128 / 7) * (127 / 128), 12) // 18.14
    expect(mcnemarBetaMixtureEValue(7, 0)).toBeCloseTo((256 / 8) * (255 / 256), 12) // 31.9
    expect(mcnemarEValue(7, 3)).toBe(mcnemarBetaMixtureEValue(7, 3))
    expect(mcnemarRegressed(6, 0, 0.05)).toBe(false)
    expect(mcnemarRegressed(7, 0, 0.05)).toBe(true)
    expect(mcnemarEValue(0, 0)).toBe(1)
  })

  it('never rewards improvements and stays below 1/α under H0 in ≥ 1 − α of runs', () => {
    expect(mcnemarEValue(0, 30)).toBeLessThan(0.1)
    const alpha = 0.05
    let crossed = 0
    // A pure function of the counts, which the 400 paths revisit.
    const eValue = onceByCounts(mcnemarEValue)
    for (let run = 0; run < 400; run++) {
      const random = mulberry32(run)
      let w = 0
      let b = 0
      for (let i = 0; i < 300; i++) {
        if (random() < 0.5) w++
        else b++
        if (i % 5 === 4 && eValue(w, b) >= 1 / alpha) {
          crossed++
          break
        }
      }
    }
    expect(crossed / 400).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / 400))
  })
})

describe('boundsVerdict and the monitor', () => {
  it('passes only when the whole interval meets the bound, fails when none of it does; { max } mirrored', () => {
    expect(boundsVerdict(0.7, { lower: 0.71, upper: 0.9 })).toBe('pass')
    expect(boundsVerdict(0.7, { lower: 0.7 - 1e-10, upper: 0.9 })).toBe('pass') // BOUND_EPSILON, as the fixed-sample rule
    expect(boundsVerdict(0.7, { lower: 0.69, upper: 0.9 })).toBe('undecided')
    expect(boundsVerdict(0.7, { lower: 0.5, upper: 0.69 })).toBe('fail')
    expect(boundsVerdict({ max: 0.1 }, { lower: 0.02, upper: 0.09 })).toBe('pass')
    expect(boundsVerdict({ max: 0.1 }, { lower: 0.11, upper: 0.3 })).toBe('fail')
    expect(boundsVerdict({ max: 0.1 }, { lower: 0.05, upper: 0.2 })).toBe('undecided')
    expect(boundsVerdict({ min: 0.2, max: 0.4 }, { lower: 0.1, upper: 0.5 })).toBe('undecided')
    expect(boundsVerdict({ min: 0.2, max: 0.4 }, { lower: 0.25, upper: 0.35 })).toBe('pass')
  })

  it('balanced accuracy is bounded jointly over the classes; a class never seen may be anywhere', () => {
    const labelled = [...Array(10)].flatMap((_, i) => [{ criterion: 'c', gold: 'x' }, { criterion: 'c', gold: i < 5 ? 'y' : 'z' }])
    // With a BetaPrior the monitor gives the beta-mixture bounds of earlier versions.
    const monitor = new SequentialMonitor({ balancedAccuracy: 0.5, accuracy: 0.5 }, 0.06, labelled, DEFAULT_PRIOR)
    for (let i = 0; i < 40; i++) monitor.observe({ criterion: 'c', gold: 'x', hit: true, consistent: true, circular: null })
    for (let i = 0; i < 20; i++) monitor.observe({ criterion: 'c', gold: 'y', hit: i < 10, consistent: true, circular: null })
    const look = monitor.look()
    const joint = meanRateConfidenceSequence([{ successes: 40, n: 40 }, { successes: 10, n: 20 }, { successes: 0, n: 0 }], 0.06)
    expect(look.bounds.balancedAccuracy).toEqual(joint)
    // The unseen class z spans [0, 1]: the mean's bounds are those of the seen two, shifted by z's extremes.
    const seen = meanRateConfidenceSequence([{ successes: 40, n: 40 }, { successes: 10, n: 20 }], 0.06)
    expect(joint.lower).toBeCloseTo((2 * seen.lower) / 3, 9)
    expect(joint.upper).toBeCloseTo((2 * seen.upper + 1) / 3, 9)
    expect(look.bounds.accuracy).toEqual(bernoulliConfidenceSequence(50, 60, 0.06, DEFAULT_PRIOR))
    expect(look.verdicts).toEqual({ balancedAccuracy: 'undecided', accuracy: 'pass' })
    expect(lookStops(look)).toBe(false)
  })

  it('the worst criterion: the least of per-criterion joint bounds at α / criteria', () => {
    const labelled = ['p', 'q'].flatMap((criterion) => ['a', 'b'].map((gold) => ({ criterion, gold })))
    const monitor = new SequentialMonitor({ perCriterion: 0.6 }, 0.05, labelled, DEFAULT_PRIOR)
    const counts = { p: { a: [45, 50], b: [40, 50] }, q: { a: [30, 50], b: [35, 50] } } as const
    for (const [criterion, byGold] of Object.entries(counts))
      for (const [gold, [hits, n]] of Object.entries(byGold))
        for (let i = 0; i < n; i++) monitor.observe({ criterion, gold, hit: i < hits, consistent: true, circular: null })
    const p = meanRateConfidenceSequence([{ successes: 45, n: 50 }, { successes: 40, n: 50 }], 0.025)
    const q = meanRateConfidenceSequence([{ successes: 30, n: 50 }, { successes: 35, n: 50 }], 0.025)
    expect(monitor.look().bounds.perCriterion).toEqual({ lower: Math.min(p.lower, q.lower), upper: Math.min(p.upper, q.upper) })
  })

  it('keeps a verdict once reached and leaves keys it cannot bound undecided', () => {
    const monitor = new SequentialMonitor({ accuracy: 0.5, slotSensitivityGap: { max: 0.1 } }, 0.05, [{ criterion: 'c', gold: 'a' }])
    for (let i = 0; i < 60; i++) monitor.observe({ criterion: 'c', gold: 'a', hit: true, consistent: true, circular: true })
    expect(monitor.look().verdicts).toEqual({ accuracy: 'pass', slotSensitivityGap: 'undecided' })
    for (let i = 0; i < 200; i++) monitor.observe({ criterion: 'c', gold: 'a', hit: false, consistent: true, circular: true })
    const later = monitor.look()
    expect(later.verdicts.accuracy).toBe('pass')
    expect(later.bounds.slotSensitivityGap).toBeUndefined()
    expect(lookStops(later)).toBe(false)
    expect(lookStops({ verdicts: {}, bounds: {} })).toBe(false)
    expect(lookStops({ verdicts: { a: 'fail', b: 'undecided' }, bounds: {} })).toBe(true)
  })
})
