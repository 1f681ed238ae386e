import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../../src/core/math/random.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { DEBIAS_MODES, orderings } from '../../../src/core/requests/orderings.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'
import { chanceOrderConsistency } from '../../../src/core/statistics/baselines.ts'

const quiet = { onWarning: () => {} }

/** A decision whose options have ids "0".."k−1" and whose state names its content preference. */
function decision(id: string, k: number, answer: number, state = id): Decision {
  return {
    id,
    state,
    criterion: { key: `k${k}`, options: Array.from({ length: k }, (_, i) => ({ id: String(i), text: `option ${i}` })) },
    answer_id: String(answer),
  }
}

/**
 * The multiplicative model of PriDe and contextual calibration: the probability at
 * slot s is ∝ π[s]·q[option in slot s]. `q` may depend on the state.
 */
function multiplicative(prior: readonly number[], q: (state: string) => readonly number[]): ScoreFn {
  return (requests) =>
    requests.map(({ state, criterion }) => criterion.options.map((option, slot) => prior[slot]! * q(state)[Number(option.id)]!))
}

// docs/debias-modes.md, the multiplicative-prior counterexample: exact fractions.
const Q = [1 / 2, 1 / 20, 9 / 20]
const PI = [1 / 20, 3 / 5, 7 / 20]
const o1 = multiplicative(PI, () => Q)

describe('O1: a multiplicative slot prior against probability and log averaging', () => {
  it('cyclic probability averaging picks option 2 with (83/179, 8043/121720, 57237/121720)', async () => {
    const result = await evaluateWithScorer([decision('o1', 3, 0)], o1, { debias: 'cyclic', ...quiet })
    const p = result.records[0]!.probabilities
    expect(p['0']).toBeCloseTo(83 / 179, 14)
    expect(p['1']).toBeCloseTo(8043 / 121720, 14)
    expect(p['2']).toBeCloseTo(57237 / 121720, 14)
    expect(result.records[0]!.prediction).toBe('2')
    expect(result.manifest.average).toBe('probability')
  })

  it('log averaging picks option 0 and recovers q = (0.5, 0.05, 0.45) exactly, under cyclic and permutation', async () => {
    for (const debias of ['cyclic', 'permutation'] as const) {
      const result = await evaluateWithScorer([decision('o1', 3, 0)], o1, { debias, average: 'log', ...quiet })
      const p = result.records[0]!.probabilities
      expect(result.records[0]!.prediction).toBe('0')
      expect(p['0']).toBeCloseTo(0.5, 14)
      expect(p['1']).toBeCloseTo(0.05, 14)
      expect(p['2']).toBeCloseTo(0.45, 14)
      expect(result.manifest.average).toBe('log')
    }
  })

  it('full-permutation probability averaging disagrees with cyclic here: ≈ (0.482078, 0.065256, 0.452666), option 0', async () => {
    const result = await evaluateWithScorer([decision('o1', 3, 0)], o1, { debias: 'permutation', ...quiet })
    const p = result.records[0]!.probabilities
    expect([p['0'], p['1'], p['2']].map((x) => +x!.toFixed(6))).toEqual([0.482078, 0.065256, 0.452666])
    expect(result.records[0]!.prediction).toBe('0')
  })

  it('the per-ordering picks still show the prior: log averaging repairs the readout, not the model', async () => {
    const result = await evaluateWithScorer([decision('o1', 3, 0)], o1, { debias: 'cyclic', average: 'log', ...quiet })
    expect(result.orderConsistency).toBe(0)
  })
})

describe('O2: an additive slot bonus is cancelled exactly by probability averaging', () => {
  it('P(slot s) = q[o] + b[s] with Σb = 0 → cyclic probability mean = q', async () => {
    const q = [0.5, 0.3, 0.2]
    const b = [0.1, -0.04, -0.06]
    const additive: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((o, slot) => q[Number(o.id)]! + b[slot]!))
    const result = await evaluateWithScorer([decision('o2', 3, 0)], additive, { debias: 'cyclic', ...quiet })
    const p = result.records[0]!.probabilities
    expect([p['0'], p['1'], p['2']].map((x) => +x!.toFixed(12))).toEqual(q)
  })
})

describe("debias: 'pride'", () => {
  // Each decision's content preference favours its gold option; a strong prior on slot B.
  const prior4 = [0.1, 0.6, 0.2, 0.1]
  const content = (state: string): number[] => {
    const gold = Number(state.split(':')[1])
    return Array.from({ length: 4 }, (_, i) => (i === gold ? 0.4 : 0.2))
  }
  const set4 = (n: number) => Array.from({ length: n }, (_, i) => decision(`d${i}`, 4, i % 4, `d${i}:${i % 4}`))
  const scorer = multiplicative(prior4, content)

  it('is a debias mode with cyclic orderings for the sampled decisions', () => {
    expect(DEBIAS_MODES).toContain('pride')
    expect(orderings(3, 'pride')).toEqual(orderings(3, 'cyclic'))
  })

  it('costs α·n + (1 − α) passes per decision: 1.15 at 5% and 4 options (O6)', async () => {
    for (const n of [20, 100]) {
      const result = await evaluateWithScorer(set4(n), scorer, { debias: 'pride', ...quiet })
      expect(result.manifest.forwardPasses).toBe(0.05 * n * 4 + 0.95 * n)
      expect(result.manifest.pride).toMatchObject({ fraction: 0.05, passesPerDecision: 1.15 })
      expect((result.manifest.pride as { sampled: string[] }).sampled).toHaveLength(n / 20)
    }
  })

  it('counts the requests it really makes', async () => {
    let requests = 0
    const counting: ScoreFn = (batch) => {
      requests += batch.length
      return scorer(batch) as number[][]
    }
    const result = await evaluateWithScorer(set4(40), counting, { debias: 'pride', chunkSize: 3, ...quiet })
    expect(requests).toBe(2 * 4 + 38)
    expect(result.manifest.forwardPasses).toBe(requests)
  })

  it('estimates the slot prior exactly under the multiplicative model and then reads every decision right', async () => {
    const none = await evaluateWithScorer(set4(40), scorer, { debias: 'none', ...quiet })
    // Uncorrected, the slot-B prior wins wherever gold is not in slot B.
    expect(none.accuracy).toBe(0.25)
    const result = await evaluateWithScorer(set4(40), scorer, { debias: 'pride', ...quiet })
    const estimated = (result.manifest.pride as { priors: Record<string, number[]> }).priors['4']!
    estimated.forEach((value, slot) => expect(value).toBeCloseTo(prior4[slot]!, 9))
    expect(result.accuracy).toBe(1)
    expect(result.balancedAccuracy).toBe(1)
  })

  it('the counterexample of docs/debias-modes.md: PriDe\'s prior from one decision is π exactly (and the correction recovers q)', async () => {
    const result = await evaluateWithScorer([decision('o1', 3, 0)], o1, { debias: 'pride', ...quiet })
    const estimated = (result.manifest.pride as { priors: Record<string, number[]> }).priors['3']!
    estimated.forEach((value, slot) => expect(value).toBeCloseTo(PI[slot]!, 9))
    const p = result.records[0]!.probabilities
    expect([p['0'], p['1'], p['2']].map((x) => +x!.toFixed(9))).toEqual(Q)
    // Corrected by the true prior, every rotation picks option 0.
    expect(result.orderConsistency).toBe(1)
  })

  it('reports order consistency over the sampled decisions only, and says so in the manifest', async () => {
    // Positional scorer: every decision in the sample is inconsistent (its picks follow slot A).
    const positional: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((_, slot) => (slot === 0 ? 0.8 : 0.2 / 3)))
    const result = await evaluateWithScorer(set4(40), positional, { debias: 'pride', average: 'log', ...quiet })
    const pride = result.manifest.pride as { sampled: string[]; orderConsistencyOver: string; priors: Record<string, number[]> }
    expect(pride.orderConsistencyOver).toBe('the 2 sampled decisions')
    // Corrected by the estimated prior (= the positional vector), every slot ties; the first wins.
    pride.priors['4']!.forEach((value, slot) => expect(value).toBeCloseTo(slot === 0 ? 0.8 : 0.2 / 3, 9))
    expect(result.orderConsistency).toBe(0)
    const sampledRecords = result.records.filter((r) => pride.sampled.includes(r.id))
    expect(sampledRecords.every((r) => r.picks.length === 4)).toBe(true)
    expect(result.records.filter((r) => !pride.sampled.includes(r.id)).every((r) => r.picks.length === 1)).toBe(true)
  })

  it('samples per option count (at least one each) and deterministically per seed', async () => {
    const mixed = [...set4(30), ...Array.from({ length: 10 }, (_, i) => decision(`t${i}`, 2, i % 2, `t${i}:${i % 2}`))]
    const two: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map(() => 1))
    const run = (seed: number) => evaluateWithScorer(mixed, two, { debias: 'pride', seed, ...quiet })
    const [a, b, c] = await Promise.all([run(1), run(1), run(2)])
    const sampled = (r: typeof a) => (r.manifest.pride as { sampled: string[] }).sampled
    expect(sampled(a)).toEqual(sampled(b))
    expect(sampled(a)).not.toEqual(sampled(c))
    // round(0.05·30) = 2 four-option decisions, max(1, round(0.5)) = 1 two-option decision.
    expect(sampled(a).filter((id) => id.startsWith('d'))).toHaveLength(2)
    expect(sampled(a).filter((id) => id.startsWith('t'))).toHaveLength(1)
    expect(Object.keys((a.manifest.pride as { priors: object }).priors)).toEqual(['2', '4'])
    expect(a.manifest.forwardPasses).toBe(2 * 4 + 28 + 1 * 2 + 9)
  })

  it('prideFraction 1 scores everything cyclically and corrects it', async () => {
    const result = await evaluateWithScorer(set4(8), scorer, { debias: 'pride', prideFraction: 1, ...quiet })
    expect(result.manifest.forwardPasses).toBe(32)
    expect(result.accuracy).toBe(1)
    expect(result.orderConsistency).toBe(1)
  })

  it('rejects a fraction outside (0, 1] and an unknown average, with ConfigError', async () => {
    await expect(evaluateWithScorer(set4(4), scorer, { debias: 'pride', prideFraction: 0, ...quiet })).rejects.toThrow(ConfigError)
    await expect(evaluateWithScorer(set4(4), scorer, { debias: 'pride', prideFraction: 1.5, ...quiet })).rejects.toThrow(/prideFraction must be a number in \(0, 1\], got 1\.5/)
    await expect(evaluateWithScorer(set4(4), scorer, { average: 'median' as never, ...quiet })).rejects.toThrow(/average must be one of probability, log, got "median"/)
  })
})

describe('O4: chance order consistency of a random guesser under cyclic orderings is n^(1−n)', () => {
  it.each([2, 3, 4])('n = %i, seeded random scorer over 6000 decisions', async (n) => {
    const random = mulberry32(100 + n)
    // Independent random vectors: each ordering's argmax is a uniform random slot.
    const guesser: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map(() => random()))
    const decisions = Array.from({ length: 6000 }, (_, i) => decision(`r${i}`, n, i % n))
    const result = await evaluateWithScorer(decisions, guesser, { debias: 'cyclic', ...quiet })
    const expected = chanceOrderConsistency(n, n)
    expect(expected).toBeCloseTo(n ** (1 - n), 15)
    const se = Math.sqrt((expected * (1 - expected)) / decisions.length)
    expect(Math.abs(result.orderConsistency! - expected)).toBeLessThan(4 * se)
  })
})
