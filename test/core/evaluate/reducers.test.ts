import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { atLeast, passAt, REDUCERS, resolveReducer, type Reducer, type ReducerLike } from '../../../src/core/evaluate/reducers.ts'

// The name a reducer reports is what the manifest records; it must resolve back to the same reducer.
describe('reducer names round-trip', () => {
  const k = fc.integer({ min: 1, max: 50 })
  const reducer: fc.Arbitrary<Reducer> = fc.oneof(
    fc.constantFrom(...Object.values(REDUCERS)),
    k.map((n) => atLeast(n)),
    k.map((n) => passAt(n)),
  )
  // Per-epoch scores in {0, 0.5, 1}, at least 50 epochs so every passAt(k ≤ 50) is defined.
  const epochs = fc.array(fc.constantFrom(0, 0.5, 1), { minLength: 50, maxLength: 60 })

  it('resolveReducer(resolveReducer(x).name) has the same name and reduces the same way', () => {
    fc.assert(
      fc.property(reducer, epochs, (r, values) => {
        const once = resolveReducer(r)
        const twice = resolveReducer(once.name as ReducerLike)
        expect(twice.name).toBe(once.name)
        expect(resolveReducer(twice.name as ReducerLike).name).toBe(once.name)
        expect(twice.reduce(values)).toBe(once.reduce(values))
      }),
      { numRuns: 200, seed: 12 },
    )
  })

  it('at_least_K and pass_at_K resolve to atLeast(K) and passAt(K): [1, 0, 1] → 1 and 1 at K = 2', () => {
    expect(resolveReducer('at_least_2').reduce([1, 0, 1])).toBe(1)
    expect(resolveReducer('at_least_3').reduce([1, 0, 1])).toBe(0)
    // Chen et al. 2021: n = 3, c = 2 → pass@1 = 2/3.
    expect(resolveReducer('pass_at_1').reduce([1, 0, 1])).toBeCloseTo(2 / 3, 12)
    expect(resolveReducer('pass_at_2').reduce([1, 0, 1])).toBe(1)
  })

  it('a malformed parameterised name is an unknown reducer naming the accepted forms', () => {
    for (const name of ['at_least_0', 'pass_at_', 'pass_at_01', 'pass_at_2.5', 'at_least_-1', 'pass_at_2 ', 'PASS_AT_2', 'at_least_1e3'])
      expect(() => resolveReducer(name as ReducerLike)).toThrow(ConfigError)
    expect(() => resolveReducer('pass_at_x' as ReducerLike)).toThrow(/at_least_K, pass_at_K/)
  })
})

// A threshold other than 1 is part of the recorded name, so a reducer resolved from a
// manifest counts the same epochs as the one that produced it.
describe('reducer names carry a non-default threshold', () => {
  const k = fc.integer({ min: 1, max: 20 })
  const threshold = fc.oneof(fc.constantFrom(1, 0.5, 0.6, 0, 1e-7, 0.1 + 0.2), fc.double({ min: 0, max: 1, noNaN: true }))
  const parameterised = fc.tuple(fc.constantFrom(atLeast, passAt), k, threshold)

  it('resolveReducer(r.name) reduces every epoch list like r, for any k and threshold in [0, 1]', () => {
    fc.assert(
      fc.property(parameterised, (tuple) => {
        const [factory, n, t] = tuple
        const r = factory(n, t)
        const back = resolveReducer(r.name as ReducerLike)
        expect(back.name).toBe(r.name)
        // Epoch scores at, just below and around the threshold, at least 20 so every passAt(k ≤ 20) is defined.
        const below = t - Math.max(Math.abs(t) * 1e-9, Number.MIN_VALUE)
        const values = Array.from({ length: 24 }, (_, i) => [t, below, 0, 1, 0.5, t][i % 6]!)
        for (const length of [20, 21, 24]) expect(back.reduce(values.slice(0, length))).toBe(r.reduce(values.slice(0, length)))
      }),
      { numRuns: 300, seed: 12 },
    )
  })

  it('names: threshold 1 is left out, any other is written as JavaScript prints it', () => {
    expect(atLeast(3).name).toBe('at_least_3')
    expect(atLeast(3, 1).name).toBe('at_least_3')
    expect(atLeast(3, 0.6).name).toBe('at_least_3_ge_0.6')
    expect(passAt(2, 0.5).name).toBe('pass_at_2_ge_0.5')
    expect(passAt(2, 0).name).toBe('pass_at_2_ge_0')
    expect(atLeast(1, 1e-7).name).toBe('at_least_1_ge_1e-7')
  })

  it('at_least_3_ge_0.6 counts epochs ≥ 0.6, at_least_3 only epochs of 1; pass_at_1_ge_0.5 is c/n with c the epochs ≥ 0.5', () => {
    expect(resolveReducer('at_least_3_ge_0.6').reduce([0.6, 0.7, 1])).toBe(1)
    expect(resolveReducer('at_least_3').reduce([0.6, 0.7, 1])).toBe(0)
    expect(resolveReducer('at_least_3_ge_0.6').reduce([0.6, 0.59, 1])).toBe(0)
    // Chen et al. 2021 with n = 3, c = 1 (only 0.5 passes): pass@1 = 1/3.
    expect(resolveReducer('pass_at_1_ge_0.5').reduce([0.5, 0.4, 0])).toBeCloseTo(1 / 3, 12)
    expect(resolveReducer('at_least_2_ge_1').name).toBe('at_least_2') // the explicit default resolves to the short name
  })

  it('a malformed threshold, or a non-finite one, is refused', () => {
    for (const name of ['at_least_2_ge_', 'at_least_2_ge_x', 'at_least_2_ge_.5', 'at_least_2_ge_0.5_', 'at_least_2_ge_Infinity', 'at_least_2_ge_NaN', 'at_least_2_ge_1e999', 'pass_at_2_gt_0.5'])
      expect(() => resolveReducer(name as ReducerLike), name).toThrow(ConfigError)
    expect(() => atLeast(2, Number.NaN)).toThrow(/threshold must be a finite number, got NaN/)
    expect(() => passAt(2, Infinity)).toThrow(/threshold must be a finite number, got Infinity/)
  })
})
