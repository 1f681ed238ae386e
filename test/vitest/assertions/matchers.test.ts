// The matchers: messages, bounds, .not, and what they refuse.
import { describe, expect, expectTypeOf, test } from 'vitest'
import { evaluateWithScorer, resultToJson, type EvalResult, type ScoreFn } from '../../../src/core/index.ts'
import { render } from '../../../src/report/index.ts'
import { decision } from '../../helpers/decisions.ts'
import { aboveChanceP } from '../../../src/core/statistics/above-chance.ts'
import { scepticMatchers, type AtLeast } from '../../../src/vitest/assertions/matchers.ts'
import { fakeResult } from '../../helpers/fake-result.ts'

expect.extend(scepticMatchers)

describe('matchers', () => {
  const good = fakeResult(Array(10).fill(true))
  const bad = fakeResult([true, ...Array(9).fill(false)])

  test('pass, fail with value, bound and letters, and .not', () => {
    expect(good).toHaveOrderConsistency({ atLeast: 0.9 })
    expect(good).toHaveBalancedAccuracy({ atLeast: 0.85 })
    expect(bad).not.toHaveOrderConsistency({ atLeast: 0.5 })
    expect(() => expect(bad).toHaveOrderConsistency({ atLeast: 0.8 })).toThrow(
      'expected order consistency ≥ 0.80, measured 0.100: 1 of 10 decisions gave the same answer under every ordering (n = 10, chance 0.500, debias cyclic; letters picked A:75% B:25%)',
    )
    expect(() => expect(good).not.toHaveBalancedAccuracy({ atLeast: 0.5 })).toThrow('expected balanced accuracy below 0.50, measured 0.850')
    expect(() => expect(good).toHaveOrderConsistency({ atLeast: 0.5, ...{} } as never)).not.toThrow()
  })

  test('order consistency n/a fails with the reason', () => {
    expect(() => expect(fakeResult([true], { orderConsistency: null })).toHaveOrderConsistency({ atLeast: 0 })).toThrow(
      'measured n/a: only one ordering was scored',
    )
  })

  test('a value that was not measured fails the matcher and its .not alike (no green from n/a)', () => {
    // Before: .not passed on n/a, NaN and an empty perCriterion, so an audit under debias "none" was green.
    const oneOrdering = fakeResult([true], { orderConsistency: null })
    expect(() => expect(oneOrdering).not.toHaveOrderConsistency({ atLeast: 0.5 })).toThrow('measured n/a: only one ordering was scored')
    expect(() => expect(fakeResult([true], { balancedAccuracy: NaN })).not.toHaveBalancedAccuracy({ atLeast: 0.5 })).toThrow(
      'expected balanced accuracy ≥ 0.50, measured n/a: not measured',
    )
    expect(() => expect(fakeResult([true], { perCriterion: {} })).not.toHavePerCriterionBalancedAccuracy({ atLeast: 0.5 })).toThrow(
      'but the result has no criterion',
    )
  })

  test('above chance refuses a margin or alpha that would silently weaken it', () => {
    // Before: margin NaN was read as 0, and alpha 2 made every p-value pass.
    const few = fakeResult([true, true, true])
    for (const margin of [NaN, -0.1, 2, '0.1'])
      expect(() => expect(few).toHaveAccuracyAboveChance({ margin } as never)).toThrow(`toHaveAccuracyAboveChance(): margin must be a number ≥ 0 and ≤ 1, got ${typeof margin === "number" ? margin : JSON.stringify(margin)}`)
    for (const alpha of [NaN, 0, 1, 2])
      expect(() => expect(few).toHaveAccuracyAboveChance({ alpha })).toThrow(`toHaveAccuracyAboveChance(): alpha must be a number > 0 and < 1, got ${alpha}`)
  })

  test('atLeast and tolerance outside [0, 1] are refused, whatever the polarity (a percent, or a bound below 0, passed before)', () => {
    const few = fakeResult([true, false, true])
    for (const matcher of ['toHaveBalancedAccuracy', 'toHaveOrderConsistency', 'toHavePerCriterionBalancedAccuracy'] as const)
      for (const atLeast of [-1, 70, NaN]) {
        const message = `${matcher}(): atLeast must be a number ≥ 0 and ≤ 1, got ${atLeast}`
        expect(() => expect(few)[matcher]({ atLeast })).toThrow(message)
        expect(() => expect(few).not[matcher]({ atLeast })).toThrow(message)
      }
    for (const tolerance of [-0.1, 5])
      expect(() => expect({ A: 0.5, B: 0.5 }).toMatchLetterDistribution({ tolerance })).toThrow(`toMatchLetterDistribution(): tolerance must be a number ≥ 0 and ≤ 1, got ${tolerance}`)
  })

  test('per criterion names the worst criterion', () => {
    expect(good).toHavePerCriterionBalancedAccuracy({ atLeast: 0.6 })
    expect(() => expect(good).toHavePerCriterionBalancedAccuracy({ atLeast: 0.7 })).toThrow(
      `expected every criterion's balanced accuracy ≥ 0.70; worst is "refund" at 0.620`,
    )
  })

  test('above chance, with and without the exact test', () => {
    expect(good).toHaveAccuracyAboveChance()
    expect(good).toHaveAccuracyAboveChance({ margin: 0.3 })
    expect(good).not.toHaveAccuracyAboveChance({ margin: 0.5 })
    // 10 of 10 right at chance ½: p = 2^-10.
    expect(aboveChanceP(good.records)).toBeCloseTo(2 ** -10, 12)
    expect(good).toHaveAccuracyAboveChance({ alpha: 0.01 })
    const few = fakeResult([true, true, true])
    expect(() => expect(few).toHaveAccuracyAboveChance({ alpha: 0.05 })).toThrow('one-sided exact p = 0.125 vs alpha 0.05')
  })

  test("without alpha, above chance means what the report's verdict means: 33% against 29% chance on 24 decisions is not", async () => {
    // 12 three-option and 12 four-option decisions (chance 7/24 = 29.2%); the scorer is right on 8 (33.3%), as a guesser may be.
    const rows = Array.from({ length: 24 }, (_, i) => {
      const k = i < 12 ? 3 : 4
      return decision(k, i % k, { id: `r${i}`, state: `${i % 3 === 0 ? 'hit' : 'miss'} o${i % k}` })
    })
    // Reads the gold id from the state: on "hit" it favours it, on "miss" the next option id.
    const byGold: ScoreFn = (requests) =>
      requests.map(({ state, criterion }) => {
        const [mark, gold] = state.split(' ')
        const k = criterion.options.length
        const favoured = mark === 'hit' ? gold : `o${(Number(gold!.slice(1)) + 1) % k}`
        return criterion.options.map((o) => (o.id === favoured ? 3 : 1))
      })
    const result = await evaluateWithScorer(rows, byGold, { debias: 'cyclic', onWarning: () => {} })
    expect(result.accuracy).toBeCloseTo(8 / 24, 12)
    expect(result.manifest.chance).toBeCloseTo(7 / 24, 12)
    expect(result.statistics!.verdicts.accuracy.message).toBe('not better than chance')
    expect(render(result, { color: false })).toMatch(/^accuracy +33\.3% .*\(chance 29\.2%\) +not better than chance$/m)
    // Before: 0.333 > 0.292 passed.
    expect(() => expect(result).toHaveAccuracyAboveChance()).toThrow(/expected accuracy above chance 0\.292, measured 0\.333, one-sided exact p = 0\.\d+ vs alpha 0\.025 \(the report's verdict\)/)
    expect(result).not.toHaveAccuracyAboveChance()
    // The JSON summary (no records) reads the same test from its statistics.
    const summary = JSON.parse(JSON.stringify(resultToJson(result)))
    expect(summary.records).toBeUndefined()
    expect(summary).not.toHaveAccuracyAboveChance()
    // And a model the report calls better than chance passes, from records and from the summary.
    const reader = await evaluateWithScorer(rows.map((row) => ({ ...row, state: row.state.replace('miss', 'hit') })), byGold, { debias: 'cyclic', onWarning: () => {} })
    expect(reader.statistics!.verdicts.accuracy.betterThanChance).toBe(true)
    expect(reader).toHaveAccuracyAboveChance()
    expect(JSON.parse(JSON.stringify(resultToJson(reader)))).toHaveAccuracyAboveChance()
  })

  test('expect.soft records the failure and carries on', ({ task }) => {
    expect.soft(bad).toHaveOrderConsistency({ atLeast: 0.8 })
    expect.soft(bad).toHaveBalancedAccuracy({ atLeast: 0.99 })
    expect(task.result?.errors?.length).toBe(2)
    // Clear the soft failures so this test itself passes.
    task.result!.errors = []
    task.result!.state = 'pass'
  })

  test('typed: a wrong option or an unknown matcher is a type error', () => {
    // Checked by tsc (npm test): an unused @ts-expect-error is itself an error. Never called.
    const _typeOnly = () => {
      // @ts-expect-error the bound is called `atLeast`
      expect(good).toHaveBalancedAccuracy({ min: 0.5 })
      // @ts-expect-error no such matcher
      expect(good).toHaveOrderConsistencyOf(0.5)
    }
    expectTypeOf(expect(good).toHaveBalancedAccuracy).parameter(0).toEqualTypeOf<AtLeast>()
    expectTypeOf(expect(good).toHaveOrderConsistency).parameter(0).toEqualTypeOf<AtLeast>()
    expectTypeOf<{ min: number }>().not.toMatchTypeOf<AtLeast>()
    expectTypeOf(expect(good)).not.toHaveProperty('toHaveOrderConsistencyOf')
  })

  test('misuse is a TypeError naming the matcher', () => {
    expect(() => expect({ accuracy: 1 }).toHaveBalancedAccuracy({ atLeast: 0.5 })).toThrow(/toHaveBalancedAccuracy\(\) expects an EvalResult/)
    expect(() => expect(good).toHaveBalancedAccuracy({} as never)).toThrow(/needs a number/)
  })
})
