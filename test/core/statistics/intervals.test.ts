import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { computeStatistics } from '../../../src/core/statistics/compute.ts'
import { formatInterval } from '../../../src/report/format.ts'
import { render } from '../../../src/report/terminal.ts'
import { resultToJson, type DecisionRecord } from '../../../src/core/result/result.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'
import { wilsonInterval } from '../../../src/core/math/binomial.ts'

const OPTIONS = ['a', 'b', 'c', 'd']

function record(id: string, gold: string, prediction: string, picks: string[] = [prediction]): DecisionRecord {
  return {
    id,
    criterion: 'k',
    gold,
    prediction,
    probabilities: Object.fromEntries(OPTIONS.map((o) => [o, o === prediction ? 0.7 : 0.1])),
    picks,
    letters: picks.map(() => 'A'),
  }
}

describe('computeStatistics', () => {
  it('accuracy and order consistency carry Wilson intervals, balanced accuracy MOVER-Wilson: closed forms, no replicates', () => {
    const records = Array.from({ length: 24 }, (_, i) => record(`d${i}`, OPTIONS[i % 4]!, i < 20 ? OPTIONS[i % 4]! : 'a', ['a', 'a', 'a', 'a']))
    const h = computeStatistics(records, null, { seed: 1 })
    expect(h.intervals.accuracy).toEqual(wilsonInterval(h.intervals.accuracy.estimate * 24, 24))
    expect(h.intervals.balancedAccuracy).toMatchObject({ method: 'mover-wilson', resamples: 0, unit: 'items', units: 24 })
    expect(h.intervals.orderConsistency).toMatchObject({ estimate: 1, method: 'wilson', resamples: 0 })
    expect(computeStatistics(records, null, { seed: 1 })).toEqual(h)
    // The seed no longer moves an interval (it still seeds the ECE floor's simulation).
    expect(computeStatistics(records, null, { seed: 2 }).intervals.balancedAccuracy).toEqual({ ...h.intervals.balancedAccuracy, seed: 2 })
  })

  it('an always-first-option answerer on a balanced set: not better than chance, order consistency not better than a random guesser', () => {
    // Four options, gold uniform, prediction always "a"; under cyclic its per-ordering picks all differ.
    const records = Array.from({ length: 40 }, (_, i) => record(`d${i}`, OPTIONS[i % 4]!, 'a', ['a', 'b', 'c', 'd']))
    const h = computeStatistics(records, null, { seed: 0, goldLetters: records.map((r) => r.gold.toUpperCase()) })
    expect(h.chance.accuracy).toBe(0.25)
    expect(h.chance.orderConsistency).toBeCloseTo(1 / 64, 15)
    expect(h.verdicts.accuracy.message).toBe('not better than chance')
    expect(h.verdicts.balancedAccuracy.message).toBe('not better than chance')
    expect(h.verdicts.orderConsistency!.message).toBe('not better than a random guesser')
    // No decision is consistent: Wilson 0/40 is [0, z²/(40 + z²)].
    expect(h.intervals.orderConsistency).toMatchObject({ lower: 0, method: 'wilson' })
    expect(h.intervals.orderConsistency!.upper).toBeCloseTo(1.959963984540054 ** 2 / (40 + 1.959963984540054 ** 2), 12)
    expect(h.rstd).toBeCloseTo(43.3013, 4)
  })

  it('a model that only reproduces the majority answer is "not better than the majority baseline"', () => {
    // 70% of gold is "a"; chance (1/4) is beaten, the majority baseline is not.
    const gold = Array.from({ length: 60 }, (_, i) => (i % 10 < 7 ? 'a' : OPTIONS[1 + (i % 3)]!))
    const records = gold.map((g, i) => record(`d${i}`, g, i % 10 < 7 ? 'a' : i % 10 === 7 ? g : 'a'))
    const h = computeStatistics(records, null, { seed: 0 })
    expect(h.majorityBaseline.accuracy).toBe(0.7)
    expect(h.majorityBaseline.answers).toEqual({ k: 'a' })
    expect(h.intervals.accuracy.lower).toBeGreaterThan(h.chance.accuracy)
    expect(h.verdicts.accuracy).toMatchObject({ betterThanChance: true, betterThanMajority: false, message: 'not better than the majority baseline' })
    // Paired test against the baseline: the model fixes 6 rows and breaks none.
    expect(h.majorityBaseline.pairedTest).toMatchObject({ b: 6, c: 0 })
  })

  it('a reader that is right on 95 of 100 beats both references', () => {
    const records = Array.from({ length: 100 }, (_, i) => record(`d${i}`, OPTIONS[i % 4]!, i < 95 ? OPTIONS[i % 4]! : 'a'))
    const h = computeStatistics(records)
    expect(h.verdicts.accuracy.message).toBeNull()
    expect(h.verdicts.balancedAccuracy.message).toBeNull()
    expect(h.verdicts.orderConsistency).toBeNull()
    expect(h.intervals.orderConsistency).toBeNull()
    expect(h.orderConsistencyDecisions).toBe(0)
  })

  it('groups widen the intervals (effective size n / deff) and the minimum detectable difference', () => {
    // Hits are identical within each group of 6: strongly clustered.
    const records = Array.from({ length: 48 }, (_, i) => record(`d${i}`, 'a', Math.floor(i / 6) % 3 === 0 ? 'b' : 'a'))
    const groups = records.map((_, i) => `g${Math.floor(i / 6)}`)
    const flat = computeStatistics(records)
    const clustered = computeStatistics(records, groups)
    expect(clustered.intervals.balancedAccuracy).toMatchObject({ unit: 'groups', units: 8 })
    expect(clustered.intervals.balancedAccuracy.lower).toBeLessThan(flat.intervals.balancedAccuracy.lower)
    expect(clustered.minimumDetectableDifference).toBeGreaterThan(1.5 * flat.minimumDetectableDifference)
  })

  it('ECE is flagged unreliable at small n, with the floor reported', () => {
    const records = Array.from({ length: 24 }, (_, i) => record(`d${i}`, 'a', i % 4 === 0 ? 'b' : 'a'))
    const h = computeStatistics(records)
    expect(h.eceReliable).toBe(false)
    expect(h.eceNote.reason).toMatch(/n = 24/)
    expect(h.eceNote.floorP95).toBeGreaterThan(0)
  })

  it('minimum detectable difference at 24 decisions is large (> 20 pp)', () => {
    const records = Array.from({ length: 24 }, (_, i) => record(`d${i}`, OPTIONS[i % 4]!, i % 10 < 7 ? OPTIONS[i % 4]! : 'x'))
    expect(computeStatistics(records).minimumDetectableDifference).toBeGreaterThan(0.2)
  })

  // Nine gold classes of one decision each, all wrong, beside 30 right answers of class a:
  // balanced accuracy 0.1. A replicate takes balanced accuracy over the classes it drew, and
  // only 1.7% of replicates draw all nine, so both quantiles lay above 0.1 ([0.111, 0.25]).
  const rareClasses = [...Array.from({ length: 30 }, () => ({ gold: 'a', prediction: 'a' })), ...Array.from({ length: 9 }, (_, i) => ({ gold: `rare${i}`, prediction: 'a' }))]

  it('property: every interval contains its point estimate and lies in [0, 1]', () => {
    // Gold classes beyond the options, some rare: a class can vanish from bootstrap replicates.
    const gold = fc.oneof({ arbitrary: fc.constantFrom(...OPTIONS), weight: 3 }, { arbitrary: fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `rare${i}`)), weight: 1 })
    const arbitrary = fc.array(
      fc.record({ gold, prediction: fc.constantFrom(...OPTIONS), consistent: fc.boolean(), group: fc.integer({ min: 0, max: 5 }) }),
      { minLength: 1, maxLength: 40 },
    )
    fc.assert(
      fc.property(arbitrary, fc.nat(), fc.boolean(), (rows, seed, grouped) => {
        const records = rows.map((r, i) => record(`d${i}`, r.gold, r.prediction, r.consistent ? [r.prediction, r.prediction] : [r.prediction, 'x']))
        const h = computeStatistics(records, grouped ? rows.map((r) => `g${r.group}`) : null, { seed, resamples: 300 })
        for (const interval of [h.intervals.accuracy, h.intervals.balancedAccuracy, h.intervals.orderConsistency!, h.majorityBaseline.interval]) {
          expect(interval.lower).toBeGreaterThanOrEqual(0)
          expect(interval.upper).toBeLessThanOrEqual(1)
          expect(interval.lower).toBeLessThanOrEqual(interval.estimate)
          expect(interval.upper).toBeGreaterThanOrEqual(interval.estimate)
        }
      }),
      { numRuns: 200, examples: [[rareClasses.map((r) => ({ ...r, consistent: true, group: 0 })), 0, false]] },
    )
  })

  it('rare classes weigh in the balanced-accuracy interval as the mean they are in (MOVER-Wilson, no replicates to lose them)', () => {
    const h = computeStatistics(rareClasses.map((r, i) => record(`d${i}`, r.gold, r.prediction)))
    const interval = h.intervals.balancedAccuracy
    expect(interval.method).toBe('mover-wilson')
    expect(interval.estimate).toBeCloseTo(0.1, 15)
    // Nine classes at 0/1 (upper margin z²/(1 + z²) each) and one at 30/30 (lower margin z²/(30 + z²)), over 10.
    const z2 = 1.959963984540054 ** 2
    expect(interval.lower).toBeCloseTo(0.1 - z2 / (30 + z2) / 10, 12)
    expect(interval.upper).toBeCloseTo(0.1 + (3 * z2) / (1 + z2) / 10, 12)
  })

  // Its time is measured by `npm run bench` (the statistics column), not here.
  it('10^5 grouped decisions: closed-form intervals, the resamples setting scaled for the paired comparison', () => {
    const records = Array.from({ length: 100_000 }, (_, i) => record(`d${i}`, OPTIONS[i % 4]!, i % 7 === 0 ? 'a' : OPTIONS[i % 4]!, ['a', 'b']))
    const h = computeStatistics(records, records.map((_, i) => `g${i % 5000}`))
    expect(h.settings.resamples).toBe(200)
    expect(h.verdicts.balancedAccuracy.betterThanChance).toBe(true)
    expect(computeStatistics(records.slice(0, 10_000)).settings.resamples).toBe(2000)
    expect(h.intervals.balancedAccuracy.upper - h.intervals.balancedAccuracy.lower).toBeLessThan(0.02)
  })

  it('formats an interval in percent', () => {
    expect(formatInterval({ lower: 0.62, upper: 0.7981 })).toBe('[62.0, 79.8]')
  })
})

describe('statistics on EvalResult and in the report', () => {
  const decisions = Array.from({ length: 40 }, (_, i) => ({
    id: `d${i}`,
    state: `evidence for ${OPTIONS[i % 4]}`,
    criterion: { key: 'k', options: OPTIONS.map((id) => ({ id, text: id.toUpperCase() })) },
    answer_id: OPTIONS[i % 4]!,
    group_id: `g${Math.floor(i / 4)}`,
  }))
  const reader: ScoreFn = (requests) => requests.map(({ state, criterion }) => criterion.options.map((o) => (state.endsWith(o.id) ? 0.7 : 0.1)))
  const firstSlot: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((_, slot) => (slot === 0 ? 0.7 : 0.1)))

  it('evaluateWithScorer attaches computeStatistics of its records, seeded with its seed, groups from group_id', async () => {
    const result = await evaluateWithScorer(decisions, reader, { debias: 'cyclic', seed: 3 })
    const goldLetters = decisions.map((d) => 'ABCD'[OPTIONS.indexOf(d.answer_id)]!)
    expect(result.statistics).toEqual(computeStatistics(result.records, decisions.map((d) => d.group_id), { seed: 3, goldLetters }))
    expect(result.statistics!.intervals.balancedAccuracy).toMatchObject({ unit: 'groups', units: 10, seed: 3 })
    expect(resultToJson(result).statistics).toEqual(result.statistics)
    const again = await evaluateWithScorer(decisions, reader, { debias: 'cyclic', seed: 3 })
    expect(again.statistics).toEqual(result.statistics)
  })

  it('statistics: false leaves them out; an object sets resamples and level', async () => {
    expect((await evaluateWithScorer(decisions, reader, { statistics: false })).statistics).toBeUndefined()
    const custom = await evaluateWithScorer(decisions, reader, { statistics: { resamples: 300, level: 0.9 } })
    expect(custom.statistics!.settings).toMatchObject({ resamples: 300, level: 0.9 })
    expect(custom.statistics!.intervals.balancedAccuracy.level).toBe(0.9)
    expect(custom.statistics!.intervals.accuracy.level).toBe(0.9)
  })

  it('the report prints each interval after its value and the verdicts, and warns about ECE at small n', async () => {
    const good = render(await evaluateWithScorer(decisions, reader, { debias: 'cyclic' }), { color: false })
    expect(good).toMatch(/^accuracy {11}100\.0% {2}\[91\.2, 100\.0\] {3}\(chance 25\.0%\)$/m)
    // All right: MOVER-Wilson over four classes of 10/10, each Wilson margin d = z²/(10 + z²), is 1 − d/2 = 0.861;
    // 40/40 consistent: Wilson 40/(40 + z²) = 0.912. The same method as on any other run, so no method is named.
    expect(good).toMatch(/^balanced accuracy {2}100\.0% {2}\[86\.1, 100\.0\]$/m)
    expect(good).toMatch(/^order consistency {2}100\.0% {2}\[91\.2, 100\.0\] {3}same answer under every ordering$/m)
    expect(good).toMatch(/^ece {16}[\d.]+ {3}unreliable at n = 40 \(< 300; perfect calibration scores [\d.]+ here\): read the Brier score$/m)
    expect(good).toMatch(/^majority baseline  25\.0% {2}\[\d+\.\d, \d+\.\d\]/m)
    expect(good).toMatch(/^detectable change  ±\d+\.\d pp/m)
    expect(good).toMatch(/^rstd {15}0\.0 /m)

    const bad = render(await evaluateWithScorer(decisions, firstSlot, { debias: 'cyclic' }), { color: false })
    expect(bad).toMatch(/^accuracy .*not better than chance$/m)
    expect(bad).toMatch(/^balanced accuracy .*not better than chance$/m)
    expect(bad).toMatch(/^order consistency  0\.0% {2}\[0\.0, 8\.8\] .*not better than a random guesser$/m)
    // Every decision ties, and a tie is no answer: all recalls are 0 (first-option-wins read 43.3 here).
    expect(bad).toMatch(/^rstd {15}0\.0 {3}every recall is 0/m)
  })

  it('threshold marks stay right after the value, the interval after them', async () => {
    const result = await evaluateWithScorer(decisions, reader, { debias: 'cyclic' })
    expect(render(result, { color: false, marks: { balancedAccuracy: '✓ ≥ 0.70' } })).toMatch(/^balanced accuracy  100\.0% {3}✓ ≥ 0\.70 {2}\[86\.1, 100\.0\]$/m)
  })

  it('under pride the order-consistency interval is over the sampled decisions, and says so', async () => {
    const result = await evaluateWithScorer(decisions, reader, { debias: 'pride', prideFraction: 0.25 })
    expect(result.statistics!.orderConsistencyDecisions).toBe(10)
    expect(render(result, { color: false })).toMatch(/^order consistency  100\.0% {2}\[72\.2, 100\.0\] {3}same answer under every ordering \(over the 10 sampled decisions\)$/m)
  })

  it('a majority-only model gets "not better than the majority baseline"', async () => {
    // 3 of 4 decisions have gold "a"; the scorer always answers "a" whatever the slot.
    const skewed = decisions.map((d, i) => ({ ...d, answer_id: i % 4 === 3 ? 'b' : 'a' }))
    const alwaysA: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((o) => (o.id === 'a' ? 0.7 : 0.1)))
    const text = render(await evaluateWithScorer(skewed, alwaysA, { debias: 'cyclic' }), { color: false })
    expect(text).toMatch(/^accuracy {11}75\.0% {2}\[\d+\.\d, \d+\.\d\] {3}\(chance 25\.0%\) {3}not better than the majority baseline$/m)
    expect(text).toMatch(/^balanced accuracy  50\.0% .*not better than the majority baseline$/m)
  })
})
