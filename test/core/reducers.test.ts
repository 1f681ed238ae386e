import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/errors.ts'
import { atLeast, passAt, REDUCERS, resolveReducer, type Reducer, type ReducerLike } from '../../src/core/reducers.ts'

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
