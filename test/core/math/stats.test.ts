import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'
import { decision } from '../../helpers/decisions.ts'
import { balancedAccuracy, expectedCalibrationError } from '../../../src/core/metrics/headline.ts'
import { binomialLowerTail, binomialPmf, binomialUpperTail, clopperPearsonInterval, mcnemarExact, wilsonInterval } from '../../../src/core/math/binomial.ts'
import { chanceOrderConsistency, majorityBaseline, rstd } from '../../../src/core/statistics/baselines.ts'
import { classIndices, pairedBootstrapDifference, percentileBootstrap, percentileBootstrapCounts, quantileSorted, weightedBalancedAccuracy } from '../../../src/core/math/bootstrap.ts'
import { cltStandardError, clusteredStandardError, designEffect, millerMinimumDetectableEffect, millerSampleSize, minimumDetectableDifference } from '../../../src/core/math/power.ts'
import { eceNoiseFloor, eceReliability } from '../../../src/core/statistics/calibration.ts'
import { normalQuantile } from '../../../src/core/math/normal.ts'

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length

describe('normal quantile (AS 241)', () => {
  it('matches the familiar critical values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14)
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 14)
    expect(normalQuantile(0.5)).toBe(0)
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 10)
    expect(normalQuantile(0.025)).toBeCloseTo(-normalQuantile(0.975), 14)
  })
})

describe('Wilson and Clopper–Pearson intervals (Wilson 1927; Clopper & Pearson 1934)', () => {
  it('Wilson 20/24 = (0.6415, 0.9332)', () => {
    const w = wilsonInterval(20, 24)
    expect(w.lower).toBeCloseTo(0.6415, 4)
    expect(w.upper).toBeCloseTo(0.9332, 4)
    expect(w.estimate).toBeCloseTo(20 / 24, 15)
  })
  it('Wilson at the edges does not collapse: 24/24 lower 0.8620, 0/24 upper 0.1380, 12/24 and 7/10', () => {
    expect(wilsonInterval(24, 24).lower).toBeCloseTo(0.862, 4)
    expect(wilsonInterval(24, 24).upper).toBe(1)
    expect(wilsonInterval(0, 24).upper).toBeCloseTo(0.138, 4)
    expect(wilsonInterval(0, 24).lower).toBe(0)
    const half = wilsonInterval(12, 24)
    expect([half.lower, half.upper].map((x) => +x.toFixed(4))).toEqual([0.3143, 0.6857])
    const seven = wilsonInterval(7, 10)
    expect([seven.lower, seven.upper].map((x) => +x.toFixed(4))).toEqual([0.3968, 0.8922])
  })
  it('Clopper–Pearson 20/24 = (0.6262, 0.9526), 0/24 upper 0.14247, one-sided exact 0/24 = 1 − 0.05^(1/24)', () => {
    const cp = clopperPearsonInterval(20, 24)
    expect(cp.lower).toBeCloseTo(0.6262, 4)
    expect(cp.upper).toBeCloseTo(0.9526, 4)
    expect(clopperPearsonInterval(0, 24).upper).toBeCloseTo(0.14247, 5)
    // A 90% two-sided interval's upper bound is the 95% one-sided bound.
    expect(clopperPearsonInterval(0, 24, 0.9).upper).toBeCloseTo(1 - 0.05 ** (1 / 24), 10)
    expect(clopperPearsonInterval(24, 24).lower).toBeCloseTo(0.8575, 4)
  })
  it('property: Wilson and Clopper–Pearson contain the point estimate and stay in [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.5, max: 0.999, noNaN: true }), (n, share, level) => {
        const x = Math.round(share * n)
        for (const interval of [wilsonInterval(x, n, level), clopperPearsonInterval(x, n, level)]) {
          expect(interval.lower).toBeGreaterThanOrEqual(0)
          expect(interval.upper).toBeLessThanOrEqual(1)
          expect(interval.lower).toBeLessThanOrEqual(interval.estimate)
          expect(interval.upper).toBeGreaterThanOrEqual(interval.estimate)
        }
      }),
    )
  })
  it('Clopper–Pearson is never narrower than Wilson at the same level (it is conservative)', () => {
    for (const [x, n] of [[20, 24], [7, 10], [1, 30], [50, 100]] as const) {
      const w = wilsonInterval(x, n)
      const cp = clopperPearsonInterval(x, n)
      expect(cp.upper - cp.lower).toBeGreaterThan(w.upper - w.lower)
    }
  })
})

describe('exact binomial helpers', () => {
  it('tails agree with sums of the pmf and with each other', () => {
    expect(binomialPmf(5, 10, 0.5)).toBe(252 / 1024)
    expect(binomialLowerTail(1, 10, 0.5)).toBe(11 / 1024)
    expect(binomialUpperTail(9, 10, 0.5)).toBe(11 / 1024)
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), fc.nat(), (n, p, raw) => {
        const k = raw % (n + 1)
        expect(binomialLowerTail(k, n, p) + binomialUpperTail(k + 1, n, p)).toBeCloseTo(1, 10)
      }),
    )
  })
  it('large n stays finite (log-space path)', () => {
    expect(binomialUpperTail(1100, 2000, 0.5)).toBeGreaterThan(0)
    expect(binomialUpperTail(1100, 2000, 0.5)).toBeLessThan(1e-5)
    expect(binomialLowerTail(1000, 2000, 0.5)).toBeCloseTo(0.5 + binomialPmf(1000, 2000, 0.5) / 2, 10)
  })
})

describe('exact McNemar (McNemar 1947)', () => {
  it.each([
    [0, 5, 0.0625],
    [0, 6, 0.03125],
    [1, 9, 0.021484375],
    [2, 8, 0.109375],
    [4, 14, 0.0308838],
    [5, 5, 1],
    [0, 0, 1],
  ])('two-sided (%i, %i) = %f', (b, c, expected) => {
    expect(mcnemarExact(b, c).pTwoSided).toBeCloseTo(expected, 7)
    expect(mcnemarExact(c, b).pTwoSided).toBeCloseTo(expected, 7)
  })
  it('(3, 8) ≈ 0.2266 (typedecide\'s reported p = 0.23)', () => {
    expect(mcnemarExact(3, 8).pTwoSided).toBeCloseTo(0.2266, 4)
  })
  it('mid-p: (1, 9) = 0.011719, (0, 5) = 0.03125, (2, 8) = 0.065430, (4, 14) = 0.019211', () => {
    expect(mcnemarExact(1, 9).pMid).toBeCloseTo(0.011719, 6)
    expect(mcnemarExact(0, 5).pMid).toBeCloseTo(0.03125, 8)
    expect(mcnemarExact(2, 8).pMid).toBeCloseTo(0.06543, 5)
    expect(mcnemarExact(4, 14).pMid).toBeCloseTo(0.019211, 6)
  })
  it('mid-p at b = c is 1 (Fagerland\'s definition; the capped-then-subtracted 0.7539 is not used)', () => {
    expect(mcnemarExact(5, 5).pMid).toBe(1)
  })
  it('one-sided regression test b = 1 (fixed), c = 6 (broken): P(X ≥ 6) = 0.0625', () => {
    const result = mcnemarExact(1, 6)
    expect(result.pCGreater).toBe(0.0625)
    expect(result.pBGreater).toBeCloseTo(1 - 1 / 128, 12)
  })
  it('five discordant pairs all one way are not significant with the exact test', () => {
    expect(mcnemarExact(0, 5).pTwoSided).toBeGreaterThan(0.05)
  })
})

describe('percentile bootstrap', () => {
  // Continuous scores, so replicate quantiles do not sit on a lattice shared by every seed.
  const scores = Array.from({ length: 40 }, (_, i) => ((i * 37) % 41) / 41)
  it('is deterministic per seed and changes with the seed', () => {
    const one = percentileBootstrap(scores, mean, { seed: 7 })
    const two = percentileBootstrap(scores, mean, { seed: 7 })
    const other = percentileBootstrap(scores, mean, { seed: 8 })
    expect(one).toEqual(two)
    expect([other!.lower, other!.upper]).not.toEqual([one!.lower, one!.upper])
  })
  it('property: deterministic per seed for any data', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }), fc.nat(), (xs, seed) => {
        expect(percentileBootstrap(xs, mean, { seed, resamples: 200 })).toEqual(percentileBootstrap(xs, mean, { seed, resamples: 200 }))
      }),
      { numRuns: 50 },
    )
  })
  it('for a mean it is close to the Wald interval at moderate n, and collapses at n/n (a documented weakness)', () => {
    const xs = Array.from({ length: 200 }, (_, i) => (i < 140 ? 1 : 0))
    const interval = percentileBootstrap(xs, mean, { seed: 1, resamples: 4000 })!
    const half = 1.96 * Math.sqrt((0.7 * 0.3) / 200)
    expect(interval.lower).toBeCloseTo(0.7 - half, 1)
    expect(interval.upper).toBeCloseTo(0.7 + half, 1)
    const all = percentileBootstrap(Array(24).fill(1), mean)!
    expect([all.lower, all.upper]).toEqual([1, 1])
  })
  it('resamples whole groups when groups are given: a perfectly clustered set gets a wider interval', () => {
    // 10 groups of 10 identical scores: the effective sample is 10, not 100.
    const xs = Array.from({ length: 100 }, (_, i) => (Math.floor(i / 10) % 2 === 0 ? 1 : 0))
    const groups = xs.map((_, i) => `g${Math.floor(i / 10)}`)
    const items = percentileBootstrap(xs, mean, { seed: 3 })!
    const clustered = percentileBootstrap(xs, mean, { seed: 3, groups })!
    expect(items.unit).toBe('items')
    expect(clustered.unit).toBe('groups')
    expect(clustered.units).toBe(10)
    expect(clustered.upper - clustered.lower).toBeGreaterThan(2 * (items.upper - items.lower))
  })
  it('the multiplicity form draws the same replicates: identical intervals for balanced accuracy, with and without groups', () => {
    const random = mulberry32(9)
    const gold = Array.from({ length: 60 }, () => ['a', 'b', 'c'][Math.floor(random() * 3)]!)
    const pred = gold.map((g) => (random() < 0.7 ? g : 'a'))
    const groups = gold.map((_, i) => `g${i % 17}`)
    const rows = gold.map((g, i) => ({ g, p: pred[i]! }))
    const { classOf, classes } = classIndices(gold)
    const hit = Uint8Array.from(rows, (r) => Number(r.g === r.p))
    for (const options of [{ seed: 4 }, { seed: 4, groups }]) {
      const slow = percentileBootstrap(rows, (s) => balancedAccuracy(s.map((r) => r.g), s.map((r) => r.p)), options)!
      const fast = percentileBootstrapCounts(rows.length, (w) => weightedBalancedAccuracy(classOf, hit, classes, w), options)!
      expect(fast.lower).toBeCloseTo(slow.lower, 12)
      expect(fast.upper).toBeCloseTo(slow.upper, 12)
      expect(fast.estimate).toBeCloseTo(slow.estimate, 12)
      expect(fast.unit).toBe(slow.unit)
    }
  })
  it('paired bootstrap of a difference: identical sides give [0, 0]; a constant shift gives exactly that shift', () => {
    const xs = Array.from({ length: 30 }, (_, i) => (i * 7) % 11 / 11)
    expect(pairedBootstrapDifference(xs, xs, mean)).toMatchObject({ estimate: 0, lower: 0, upper: 0 })
    const shifted = pairedBootstrapDifference(xs, xs.map((x) => x + 0.25), mean)!
    expect(shifted.lower).toBeCloseTo(0.25, 12)
    expect(shifted.upper).toBeCloseTo(0.25, 12)
  })
  it('returns null when the statistic is undefined on the data', () => {
    expect(percentileBootstrap([], () => NaN)).toBeNull()
  })
  it('type-7 quantiles', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5)
    expect(quantileSorted([1, 2, 3, 4], 0)).toBe(1)
    expect(quantileSorted([1, 2, 3, 4], 1)).toBe(4)
  })
})

describe('baselines and chance', () => {
  it('majority baseline: accuracy max_k n_k / n with a Wilson interval; constant predictor balanced accuracy 1/K', () => {
    const gold = ['a', 'a', 'a', 'b', 'c', 'a', 'b', 'a']
    const base = majorityBaseline(gold)
    expect(base.answers).toEqual({ '': 'a' })
    expect(base.accuracy).toBe(5 / 8)
    expect(base.balancedAccuracy).toBeCloseTo(1 / 3, 15)
    expect(base.interval).toEqual(wilsonInterval(5, 8))
  })
  it('majority baseline is per group (criterion key)', () => {
    const gold = ['yes', 'yes', 'no', 'billing', 'tech', 'tech']
    const groups = ['refund', 'refund', 'refund', 'queue', 'queue', 'queue']
    const base = majorityBaseline(gold, groups)
    expect(base.answers).toEqual({ queue: 'tech', refund: 'yes' })
    expect(base.accuracy).toBe(4 / 6)
    expect(base.hits).toEqual([true, true, false, false, true, true])
  })
  it('chance order consistency under cyclic is n^(1−n): 1/2, 1/9, 1/64, 1/625', () => {
    const expected = [1 / 2, 1 / 9, 1 / 64, 1 / 625]
    ;[2, 3, 4, 5].forEach((n, i) => expect(chanceOrderConsistency(n, n)).toBeCloseTo(expected[i]!, 15))
    expect(chanceOrderConsistency(3, 1)).toBe(1)
  })
  it('a seeded random guesser evaluated under 3-option cyclic orderings is order-consistent about 1/9 of the time', async () => {
    const random = mulberry32(11)
    const guesser: ScoreFn = (requests) => requests.map(() => [random(), random(), random()])
    const n = 9000
    const decisions = Array.from({ length: n }, (_, i) => decision(3, i % 3, { id: `d${i}` }))
    const result = await evaluateWithScorer(decisions, guesser, { debias: 'cyclic', statistics: false })
    // Binomial SE at p = 1/9, n = 9000 is 0.0033; allow 4 SE.
    expect(Math.abs(result.orderConsistency! - chanceOrderConsistency(3, 3))).toBeLessThan(0.0133)
  })
})

describe('Miller 2024 (Miller 2024, "Adding Error Bars to Evals")', () => {
  it('clustered SE 0.26517 vs CLT 0.18898 on the toy case; Inspect differs by √(C/(C−1))', () => {
    const scores = [1, 1, 1, 0, 0, 0, 1, 0]
    const clusters = [0, 0, 0, 1, 1, 1, 2, 2]
    expect(cltStandardError(scores)).toBeCloseTo(0.18898, 5)
    expect(clusteredStandardError(scores, clusters)).toBeCloseTo(0.26517, 5)
    expect(clusteredStandardError(scores, clusters) * Math.sqrt(3 / 2)).toBeCloseTo(0.32476, 5)
    expect(designEffect(scores, clusters)).toBeCloseTo((0.26517 / 0.18898) ** 2, 3)
    expect(designEffect(scores, scores.map((_, i) => i))).toBe(1)
  })
  it('sample size ≈ 969 for δ = 0.03, ω² = 1/9; MDE 0.1321 (K = 1) and 0.0753 (K = 10) at n = 200', () => {
    expect(millerSampleSize(0.03, { omega2: 1 / 9 })).toBeCloseTo(968.997, 2)
    const base = { omega2: 1 / 9, sigmaA2: 1 / 6, sigmaB2: 1 / 6 }
    expect(millerMinimumDetectableEffect(200, base)).toBeCloseTo(0.1321, 4)
    expect(millerMinimumDetectableEffect(200, { ...base, kA: 10, kB: 10 })).toBeCloseTo(0.0753, 4)
  })
  it('minimum detectable difference at 24 decisions, p = 0.7, ρ = 0.5 is ≈ 0.26 two-sided, ≈ 0.23 one-sided', () => {
    expect(minimumDetectableDifference(24, { accuracy: 0.7 })).toBeCloseTo(0.262, 3)
    expect(minimumDetectableDifference(24, { accuracy: 0.7, sides: 1 })).toBeCloseTo(0.23, 2)
    // Shrinks like 1/√n and grows with clustering.
    expect(minimumDetectableDifference(96, { accuracy: 0.7 })).toBeCloseTo(0.262 / 2, 3)
    expect(minimumDetectableDifference(24, { accuracy: 0.7, designEffect: 4 })).toBeCloseTo(2 * 0.262, 3)
  })
})

describe('RStd (Zheng et al., ICLR 2024)', () => {
  it('always-A with gold over A–D: recalls (100, 0, 0, 0) → 43.3013 (population std, percent)', () => {
    const gold = ['A', 'B', 'C', 'D', 'A', 'B', 'C', 'D']
    expect(rstd(gold, gold.map(() => 'A'))).toBeCloseTo(43.3013, 4)
  })
  it('a perfect or uniformly wrong answerer has RStd 0; no rows → null', () => {
    const gold = ['A', 'B', 'C', 'A']
    expect(rstd(gold, gold)).toBe(0)
    expect(rstd(gold, ['B', 'C', 'A', 'B'])).toBe(0)
    expect(rstd([], [])).toBeNull()
  })
})

describe('mulberry32', () => {
  it('draws the reference sequence (uint32 state) for any seed: every seeded statistic keeps its draws', () => {
    const reference = (seed: number) => {
      let a = seed >>> 0
      return () => {
        a = (a + 0x6d2b79f5) >>> 0
        let t = a
        t = Math.imul(t ^ (t >>> 15), t | 1)
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296
      }
    }
    expect(mulberry32(0)()).toBe(reference(0)())
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32 + 7, 1.5, -0)), (seed) => {
        const [fast, slow] = [mulberry32(seed), reference(seed)]
        for (let i = 0; i < 2000; i++) expect(fast()).toBe(slow())
      }),
    )
  })
})

describe('ECE noise floor (Roelofs et al. 2022)', () => {
  it('is expectedCalibrationError over hits drawn in row order from mulberry32(seed), simulation after simulation', () => {
    // The oracle is the plain loop: one draw per row, hit when the draw is below the confidence.
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 40 }),
        (confidences, seed, simulations) => {
          const random = mulberry32(seed)
          const values = Array.from({ length: simulations }, () => expectedCalibrationError(confidences, confidences.map((c) => random() < c))!)
          const floor = eceNoiseFloor(confidences, { seed, simulations })
          values.sort((x, y) => x - y)
          expect(floor.mean).toBe(values.reduce((s, x) => s + x, 0) / simulations)
          expect(floor.p95).toBe(quantileSorted(values, 0.95))
        },
      ),
    )
  })
  it('single bin, all confidences 0.75, n = 24: simulated mean → E|X/24 − 0.75| = 0.0695', () => {
    const exact = Array.from({ length: 25 }, (_, k) => binomialPmf(k, 24, 0.75) * Math.abs(k / 24 - 0.75)).reduce((s, x) => s + x, 0)
    expect(exact).toBeCloseTo(0.0695, 4)
    const floor = eceNoiseFloor(Array(24).fill(0.75), { seed: 5, simulations: 20_000 })
    expect(Math.abs(floor.mean - exact)).toBeLessThan(0.002)
    expect(floor.p95).toBeGreaterThan(floor.mean)
  })
  it('at n = 24 ECE is never called reliable; at n = 2000 a badly calibrated model is', () => {
    const random = mulberry32(2)
    const small = Array.from({ length: 24 }, () => 0.4 + 0.6 * random())
    expect(eceReliability(0.15, small).reliable).toBe(false)
    expect(eceReliability(0.15, small).reason).toMatch(/n = 24 < 300/)
    // Overconfident: says 0.95, right half the time.
    const confidences = Array(2000).fill(0.95)
    const hits = confidences.map((_, i) => i % 2 === 0)
    const ece = expectedCalibrationError(confidences, hits)!
    const verdict = eceReliability(ece, confidences, { simulations: 200 })
    expect(verdict.reliable).toBe(true)
    // …while a calibrated one at the same n sits inside the floor.
    const calibrated = confidences.map((_, i) => i % 20 !== 0)
    expect(eceReliability(expectedCalibrationError(confidences, calibrated)!, confidences, { simulations: 200 }).reliable).toBe(false)
  })
})
