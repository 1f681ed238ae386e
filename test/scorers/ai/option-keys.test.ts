import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isIndexKey, orderedCriteria, sentKeys } from '../../../src/scorers/ai/option-keys.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'

// Ids that break object key order or prototypes: array indices, near-indices, prototype names.
const id = fc.oneof(
  fc.nat({ max: 30 }).map(String),
  fc.constantFrom('4294967294', '4294967295', '01', '-1', '1.5', ' 1', '__proto__', 'constructor', 'option_1', 'option_2', 'toString'),
  fc.string({ minLength: 1, maxLength: 4 }),
)

describe('criteria keys keep the order requested', () => {
  it('isIndexKey is exactly what object key order puts first', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat().map(String), fc.string({ maxLength: 12 }), fc.constantFrom('4294967294', '4294967295', '01', '-0')), (key) => {
        const object = Object.fromEntries([['z', 0], [key, 1]])
        expect(Object.keys(object)[0] === key && key !== 'z').toBe(isIndexKey(key))
      }),
    )
  })

  it('for any option ids: the criteria list them in the order requested and map back, or a ConfigError names them', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 2, maxLength: 20 }), (ids) => {
        const criterion = { key: 'k', options: ids.map((option) => ({ id: option, text: `text of ${option}` })) }
        let keys
        try {
          keys = sentKeys(criterion)
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError)
          expect((error as Error).message).toContain(ids.map((option) => JSON.stringify(option)).join(', '))
          return
        }
        const criteria = orderedCriteria(criterion, keys)
        expect(Object.keys(criteria)).toEqual(keys.sent)
        expect(Object.values(criteria)).toEqual(ids.map((option) => `text of ${option}`))
        keys.sent.forEach((key, slot) => expect(keys.back.get(key)).toBe(slot))
        expect(keys.sent.some(isIndexKey)).toBe(false)
      }),
      { numRuns: 500 },
    )
  })
})
