/**
 * Adversarial corpus for the statistics behind the verdicts: runs chosen so that a method switching
 * at the boundary, an interval standing in for a test, or a floor on n would reward a mistake or
 * call a perfect reader a guesser. Every case asserts the right result from a closed form.
 */
import { describe, expect, it } from 'vitest'
import { compareResults, evaluateWithScorer, resultToJson, type Decision, type EvalResult, type ScoreFn } from '../../src/core/index.ts'
import { computeStatistics } from '../../src/core/stats.ts'
import { runVerdict } from '../../src/report/run-verdict.ts'
import { render } from '../../src/report/index.ts'

const quiet = { onWarning: () => {} }
const Z2 = 1.959963984540054 ** 2

/**
 * Decision i has gold class `g{i mod classes}`; the classes come three to a criterion (`k0` holds g0–g2,
 * `k1` g3–g5, …), each criterion with four options: its three gold answers and a decoy `x`.
 */
function rows(n: number, classes: number): Decision[] {
  return Array.from({ length: n }, (_, i) => {
    const c = i % classes
    const first = c - (c % 3)
    return {
      id: `d${i}`,
      state: `answer g${c}`,
      criterion: { key: `k${first / 3}`, question: 'Which one?', options: [...[0, 1, 2].map((j) => ({ id: `g${first + j}`, text: `answer ${first + j}` })), { id: 'x', text: 'decoy' }] },
      answer_id: `g${c}`,
    }
  })
}

/** Reads the gold id from the evidence, by option id (so every ordering agrees); on `wrong` states, the decoy. */
function reader(wrong: ReadonlySet<string>): ScoreFn {
  return (requests) =>
    requests.map(({ criterion, state }) => {
      const target = wrong.has(state) ? 'x' : state.replace(/^answer (g\d+).*$/, '$1')
      return criterion.options.map((o) => (o.id === target ? 0.7 : 0.1))
    })
}

async function run(n: number, classes: number, mistakes: number): Promise<EvalResult> {
  const decisions = rows(n, classes).map((d, i) => (i < mistakes ? { ...d, state: `${d.state} #wrong${i}` } : d))
  const wrong = new Set(decisions.filter((d, i) => i < mistakes).map((d) => d.state))
  return evaluateWithScorer(decisions, reader(wrong), { debias: 'cyclic', ...quiet })
}

/** How favourable a verdict reads: fail < unknown < warn < pass. */
const RANK = { fail: 0, unknown: 1, warn: 2, pass: 3 } as const

describe('the perfect reader on 36 decisions over 9 gold classes', () => {
  it('is better than chance: exact p = 4^-36 against a uniform guesser', async () => {
    const result = await run(36, 9, 0)
    const verdict = result.statistics!.verdicts.balancedAccuracy
    expect(result.balancedAccuracy).toBe(1)
    expect(verdict.betterThanChance).toBe(true)
    expect(verdict.chanceP! / 0.25 ** 36).toBeCloseTo(1, 9)
  })

  it('reads the evidence, as one mistake does (not "too few decisions … not better than chance")', async () => {
    const [perfect, one] = await Promise.all([run(36, 9, 0), run(36, 9, 1)])
    expect(runVerdict(resultToJson(perfect))).toEqual({ severity: 'pass', sentence: 'reads the evidence: 100% balanced accuracy, 100% order consistency' })
    expect(runVerdict(resultToJson(one))).toEqual({ severity: 'pass', sentence: 'reads the evidence: 97% balanced accuracy, 100% order consistency' })
  })

  it('its balanced-accuracy interval is MOVER-Wilson: lower bound 1 − √9·(z²/(4+z²))/9', async () => {
    const interval = (await run(36, 9, 0)).statistics!.intervals.balancedAccuracy
    expect(interval.method).toBe('mover-wilson')
    // Each class 4/4: Wilson lower 4/(4 + z²), so p̂ − l = z²/(4 + z²); MOVER: 1 − √(9·d²)/9 = 1 − d/3.
    expect(interval.lower).toBeCloseTo(1 - Z2 / (4 + Z2) / 3, 12)
    expect(interval.upper).toBe(1)
  })

  it('one mistake never raises the lower bound: perfect ≥ one mistake ≥ two', async () => {
    const [zero, one, two] = await Promise.all([run(36, 9, 0), run(36, 9, 1), run(36, 9, 2)])
    const lower = (r: EvalResult) => r.statistics!.intervals.balancedAccuracy.lower
    expect(lower(zero)).toBeGreaterThan(lower(one))
    expect(lower(one)).toBeGreaterThan(lower(two))
  })

  it('the terminal report names the method on the perfect run', async () => {
    expect(render(await run(36, 9, 0), { color: false })).toMatch(/^balanced accuracy {2}100\.0% {2}\[83\.7, 100\.0\]/m)
  })
})

describe('boundary sweeps: one method, monotone, on every run from all right to all wrong', () => {
  it('9 classes of 4, 0..36 mistakes: one method, lower bound and verdict never rise with a mistake', async () => {
    const results = await Promise.all(Array.from({ length: 37 }, (_, m) => run(36, 9, m)))
    results.forEach((result, m) => {
      expect(result.statistics!.intervals.balancedAccuracy.method).toBe('mover-wilson')
      if (m === 0) return
      const before = results[m - 1]!
      expect(result.statistics!.intervals.balancedAccuracy.lower).toBeLessThanOrEqual(before.statistics!.intervals.balancedAccuracy.lower + 1e-12)
      expect(result.statistics!.verdicts.balancedAccuracy.chanceP!).toBeGreaterThanOrEqual(before.statistics!.verdicts.balancedAccuracy.chanceP! - 1e-15)
      expect(RANK[runVerdict(resultToJson(result)).severity]).toBeLessThanOrEqual(RANK[runVerdict(resultToJson(before)).severity])
    })
  })

  it.each([2, 3, 5, 8, 12, 20])('two classes of %i, every hit count: the lower bound rises with each hit; all right is never below all-but-one', (size) => {
    let previous = -1
    for (let hits = 0; hits <= size; hits++) {
      const records = [...recordsOf('a', hits, size), ...recordsOf('b', size, size)]
      const { lower } = computeStatistics(records).intervals.balancedAccuracy
      expect(lower).toBeGreaterThanOrEqual(previous - 1e-12)
      previous = lower
    }
  })

  it.each([4, 12, 30])('order consistency over %i decisions: Wilson on all data, lower bound rises with each consistent decision', (n) => {
    let previous = -1
    for (let consistent = 0; consistent <= n; consistent++) {
      const records = Array.from({ length: n }, (_, i) => ({
        id: `o${i}`,
        criterion: 'c',
        gold: 'x',
        prediction: 'x',
        probabilities: { x: 0.6, y: 0.4 },
        picks: i < consistent ? ['x', 'x'] : ['x', 'y'],
        letters: i < consistent ? ['A', 'B'] : ['A', 'A'],
      }))
      const interval = computeStatistics(records).intervals.orderConsistency!
      expect(interval.method).toBe('wilson')
      expect(interval.lower).toBeGreaterThanOrEqual(previous - 1e-12)
      previous = interval.lower
    }
  })
})

/** `total` records of gold `label`, the first `hits` right; two options, one ordering. */
function recordsOf(label: string, hits: number, total: number) {
  return Array.from({ length: total }, (_, i) => ({
    id: `${label}${i}`,
    criterion: 'c',
    gold: label,
    prediction: i < hits ? label : label === 'a' ? 'b' : 'a',
    probabilities: { a: 0.5, b: 0.5 },
    picks: [i < hits ? label : label === 'a' ? 'b' : 'a'],
    letters: ['A'],
  }))
}

describe('better than chance is a test under a uniform guesser, not an interval', () => {
  it('two right answers out of two (four options) are not better than chance: p = 1/16 > 0.025', () => {
    const records = [0, 1].map((i) => ({ id: `r${i}`, criterion: 'c', gold: 'a', prediction: 'a', probabilities: { a: 0.7, b: 0.1, c: 0.1, d: 0.1 }, picks: ['a'], letters: ['A'] }))
    const verdict = computeStatistics(records).verdicts.accuracy
    expect(verdict.chanceP).toBeCloseTo(1 / 16, 15)
    expect(verdict.betterThanChance).toBe(false)
  })

  it('two order-consistent decisions of two options (chance 1/2 each) are not better than a random guesser: p = 1/4', () => {
    const records = [0, 1].map((i) => ({ id: `r${i}`, criterion: 'c', gold: 'a', prediction: 'a', probabilities: { a: 0.7, b: 0.3 }, picks: ['a', 'a'], letters: ['A', 'B'] }))
    const verdict = computeStatistics(records).verdicts.orderConsistency!
    expect(verdict.chanceP).toBeCloseTo(1 / 4, 15)
    expect(verdict.betterThanChance).toBe(false)
  })

  it('nine wrong answers and then a right one: the verdict does not get worse with the hit (no floor on n)', async () => {
    const allWrong = await run(9, 3, 9)
    const plusHit = await evaluateWithScorer(
      [...rows(9, 3).map((d, i) => ({ ...d, state: `${d.state} #wrong${i}` })), { ...rows(10, 3)[9]!, id: 'extra' }],
      reader(new Set(rows(9, 3).map((d, i) => `${d.state} #wrong${i}`))),
      { debias: 'cyclic', ...quiet },
    )
    expect(plusHit.n).toBe(10)
    expect(RANK[runVerdict(resultToJson(plusHit)).severity]).toBeGreaterThanOrEqual(RANK[runVerdict(resultToJson(allWrong)).severity])
  })
})

describe('evaluate and compare state one detectable change for the same decisions', () => {
  it.each([0, 1, 35])('a run compared with itself states the figure its own report states (%i mistakes of 36)', async (mistakes) => {
    const result = await run(36, 9, mistakes)
    const self = compareResults({ records: result.records }, { records: result.records })
    expect(self.minimumDetectableDifference).toBeCloseTo(result.statistics!.minimumDetectableDifference, 12)
  })
})
