import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chiSquareSurvival } from '../../../src/core/math/chi-square.ts'
import { lnGamma } from '../../../src/core/math/gamma.ts'
import { mulberry32 } from '../../../src/core/math/random.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { orderings } from '../../../src/core/requests/orderings.ts'
import { CKLD_FLOOR, robustnessPanel, type PanelDecision } from '../../../src/core/metrics/robustness.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'
import { alwaysFirst, byId, decision } from '../../helpers/decisions.ts'

const quiet = { onWarning: () => {}, statistics: false as const }

/**
 * Reference upper tail of χ²(df), in a different formulation from the library's
 * series / continued fraction: for even df the finite Poisson sum
 * Q = e^{-x/2} Σ_{k<df/2} (x/2)^k / k!; for odd df the tail integral
 * ∫_x^∞ t^{df/2-1} e^{-t/2} dt / (2^{df/2} Γ(df/2)), substituted t = u² (smooth at 0),
 * by composite Simpson, with Γ of a half-integer exact (√π·(2k)!/(4^k k!)).
 */
function referenceSurvival(x: number, df: number): number {
  if (df % 2 === 0) {
    let term = Math.exp(-x / 2)
    let sum = term
    for (let k = 1; k < df / 2; k++) {
      term *= x / 2 / k
      sum += term
    }
    return sum
  }
  const a = df / 2
  let gamma = Math.sqrt(Math.PI)
  for (let k = 0.5; k < a; k++) gamma *= k
  const f = (u: number) => 2 * u ** (df - 1) * Math.exp(-(u * u) / 2)
  const lo = Math.sqrt(x)
  const hi = lo + 40
  const steps = 200_000
  const h = (hi - lo) / steps
  let sum = f(lo) + f(hi)
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * f(lo + i * h)
  return (sum * h) / 3 / (2 ** a * gamma)
}

/** A random guesser: every ordering's vector drawn afresh, so picks are uniform and independent of content and slot. */
function guesser(seed: number): ScoreFn {
  const random = mulberry32(seed)
  return (requests) => requests.map(({ criterion }) => criterion.options.map(() => random()))
}

/** n decisions of k options under cyclic orderings, each ordering's pick uniform at random. */
function randomPicks(n: number, k: number, seed: number): PanelDecision[] {
  const random = mulberry32(seed)
  const set = orderings(k, 'cyclic')
  return Array.from({ length: n }, (_, i) => ({
    goldIndex: i % k,
    orderings: set,
    picked: set.map(() => Math.floor(random() * k)),
    movable: Array.from({ length: k }, (_, s) => s),
  }))
}

describe('χ² distribution', () => {
  it('upper tail equals an independent reference at 20 points to 1e-10', () => {
    const points: [number, number][] = [
      [0.001, 1], [0.455, 1], [3.841458820694124, 1], [10.8, 1], [30, 1],
      [0.1, 2], [5.991464547107979, 2], [13.8, 2],
      [0.35, 3], [7.81, 3], [16.3, 3],
      [1, 4], [9.49, 4], [2, 5], [11.07, 5], [25, 5],
      [18.307, 10], [4, 11], [31.4, 19], [60, 30],
    ]
    for (const [x, df] of points) expect(Math.abs(chiSquareSurvival(x, df) - referenceSurvival(x, df)), `x=${x} df=${df}`).toBeLessThan(1e-10)
    // Published quantiles: the 95th percentiles of χ²(1) and χ²(2) (the latter is −2 ln 0.05 exactly).
    expect(chiSquareSurvival(3.841458820694124, 1)).toBeCloseTo(0.05, 12)
    expect(chiSquareSurvival(-2 * Math.log(0.05), 2)).toBeCloseTo(0.05, 14)
    expect(lnGamma(10)).toBeCloseTo(Math.log(362880), 12)
    expect(chiSquareSurvival(0, 3)).toBe(1)
  })
})

describe('order-robustness panel: closed forms', () => {
  it.each([2, 3, 4, 5])('always-first on %i options under cyclic: circular 0, gold-slot A 1 and others 0, gap 1', async (k) => {
    const rows = Array.from({ length: 2 * k }, (_, i) => decision(k, i % k, { id: `d${i}` }))
    const r = await evaluateWithScorer(rows, alwaysFirst, { debias: 'cyclic', ...quiet })
    expect(r.circularAccuracy).toBe(0)
    expect(r.orderingAccuracy).toBeCloseTo(1 / k, 12)
    expect(r.accuracyByGoldSlot).toEqual(Object.fromEntries('ABCDE'.slice(0, k).split('').map((l) => [l, l === 'A' ? 1 : 0])))
    expect(r.slotSensitivityGap).toBe(1)
    // Every pick on A: χ² = N(k − 1) with N = 2k·k picks, so V = 1.
    expect(r.slotBias).toMatchObject({ chiSquare: 2 * k * k * (k - 1), df: k - 1, cramersV: 1 })
    expect(r.slotBias!.p).toBeLessThan(0.01)
    // Gold uniform over letters, picks all on A: KL = (1/k)·ln(1/k) + (k−1)/k·ln((1/k)/floor).
    expect(r.ckld).toBeCloseTo((1 / k) * Math.log(1 / k) + ((k - 1) / k) * Math.log(1 / k / CKLD_FLOOR), 10)
  })

  it('property: a position-blind reader has gap 0, χ² 0 and CKLD 0 when always right', async () => {
    await fc.assert(
      // Distinct weights: a tie would be broken by position (first maximum wins), which is not position-blind.
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), fc.uniqueArray(fc.integer({ min: 1, max: 1000 }), { minLength: 5, maxLength: 5 }).map((ws) => ws.map((w) => w / 1000)), async (k, weights) => {
        const rows = Array.from({ length: 3 * k }, (_, i) => decision(k, i % k, { id: `d${i}`, state: String(i) }))
        const reader = byId((id) => weights[Number(id.slice(1))]!)
        const r = await evaluateWithScorer(rows, reader, { debias: 'cyclic', ...quiet })
        expect(r.slotSensitivityGap).toBe(0)
        expect(r.slotBias!.chiSquare).toBeCloseTo(0, 12)
        expect(r.slotBias!.p).toBeCloseTo(1, 12)
        expect(r.circularAccuracy).toBeCloseTo(r.accuracy, 12)
      }),
      { numRuns: 25 },
    )
    const right = byId((id, state) => (Number(id.slice(1)) === Number(state) % 3 ? 0.9 : 0.05))
    const rows = Array.from({ length: 6 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: String(i) }))
    const r = await evaluateWithScorer(rows, right, { debias: 'permutation', ...quiet })
    expect(r).toMatchObject({ circularAccuracy: 1, orderingAccuracy: 1, slotSensitivityGap: 0, ckld: 0 })
  })

  it('a random guesser: χ² p is uniform over seeds (Kolmogorov–Smirnov at α = 0.01)', () => {
    const ps = Array.from({ length: 300 }, (_, seed) => robustnessPanel(randomPicks(60, 4, seed + 1), { resamples: 1 }).slotBias!.p).sort((a, b) => a - b)
    const d = Math.max(...ps.map((p, i) => Math.max((i + 1) / ps.length - p, p - i / ps.length)))
    expect(d).toBeLessThan(1.63 / Math.sqrt(ps.length))
  })

  it.each([2, 3, 4])('a uniform random guesser on %i options: circular accuracy ≈ (1/n)^n within 3 SE', (k) => {
    const n = 6000
    const panel = robustnessPanel(randomPicks(n, k, 7 * k), { resamples: 1 })
    const expected = (1 / k) ** k
    expect(Math.abs(panel.circularAccuracy! - expected)).toBeLessThan(3 * Math.sqrt((expected * (1 - expected)) / n))
    expect(Math.abs(panel.orderingAccuracy! - 1 / k)).toBeLessThan(3 * Math.sqrt((1 / k) * (1 - 1 / k) / (n * k)))
  })

  it('mixed option counts: each ordering of a k-option decision expects 1/k on each of its letters', () => {
    // A 2-option decision (2 orderings) and a 3-option one (3 orderings), every pick on A:
    // observed A 5; expected A 2·½ + 3·⅓ = 2, B 2, C 1 → χ² = 9/2 + 4/2 + 1/1 = 7.5, df 2.
    const panel = robustnessPanel(
      [
        { goldIndex: 0, orderings: orderings(2, 'cyclic'), picked: [0, 0], movable: [0, 1] },
        { goldIndex: 0, orderings: orderings(3, 'cyclic'), picked: [0, 0, 0], movable: [0, 1, 2] },
      ],
      { resamples: 50 },
    )
    expect(panel.slotBias!.chiSquare).toBeCloseTo(7.5, 12)
    expect(panel.slotBias!.df).toBe(2)
    expect(panel.slotBias!.p).toBeCloseTo(Math.exp(-3.75), 12)
    expect(panel.slotBias!.cramersV).toBeCloseTo(Math.sqrt(7.5 / (5 * 2)), 12)
    const [lo, hi] = panel.slotBias!.cramersVInterval!
    expect(lo).toBeLessThanOrEqual(panel.slotBias!.cramersV + 1e-12)
    expect(hi).toBeGreaterThanOrEqual(lo)
  })

  it('Cramér’s V interval is seeded: same seed, same interval; skipped with statistics: false', async () => {
    const picks = randomPicks(40, 3, 5)
    expect(robustnessPanel(picks, { seed: 3, resamples: 200 }).slotBias).toEqual(robustnessPanel(picks, { seed: 3, resamples: 200 }).slotBias)
    expect(robustnessPanel(picks, { seed: 3, resamples: 200 }).slotBias).not.toEqual(robustnessPanel(picks, { seed: 4, resamples: 200 }).slotBias)
    const rows = Array.from({ length: 12 }, (_, i) => decision(3, i % 3, { id: `d${i}` }))
    const withStats = await evaluateWithScorer(rows, guesser(2), { debias: 'cyclic', onWarning: () => {} })
    expect(withStats.slotBias!.cramersVInterval).toHaveLength(2)
    const without = await evaluateWithScorer(rows, guesser(2), { debias: 'cyclic', ...quiet })
    expect(without.slotBias!.cramersVInterval).toBeNull()
    expect(without.slotBias!.cramersV).toBe(withStats.slotBias!.cramersV)
  })

  it('one ordering (debias none): every panel entry is null', async () => {
    const rows = Array.from({ length: 4 }, (_, i) => decision(3, i % 3, { id: `d${i}` }))
    const r = await evaluateWithScorer(rows, alwaysFirst, { debias: 'none', ...quiet })
    expect(r).toMatchObject({
      circularAccuracy: null,
      orderingAccuracy: null,
      accuracyByGoldSlot: null,
      slotSensitivityGap: null,
      slotBias: null,
      ckld: null,
      pairwise: null,
    })
  })

  it('a random guesser through the evaluator: panel present and within its ranges', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => decision(4, i % 4, { id: `d${i}` }))
    const r = await evaluateWithScorer(rows, guesser(1), { debias: 'cyclic', ...quiet })
    expect(r.circularAccuracy).toBeGreaterThanOrEqual(0)
    expect(r.slotBias!.df).toBe(3)
    expect(r.slotBias!.p).toBeGreaterThan(0)
    expect(r.slotBias!.cramersV).toBeLessThanOrEqual(1)
  })
})
