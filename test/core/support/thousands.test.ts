// The locale-free thousands separator writes what `toLocaleString('en')` writes for every
// integer (the error texts and the cache line read the same as before).
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { thousands } from '../../../src/core/support/thousands.ts'

test('equals toLocaleString("en") on integers of every length and sign', () => {
  expect(thousands(100_000)).toBe('100,000')
  expect(thousands(999)).toBe('999')
  expect(thousands(-1234567)).toBe('-1,234,567')
  fc.assert(
    fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: 0, max: 9999 })), (n) => {
      expect(thousands(n)).toBe(n.toLocaleString('en'))
    }),
    { numRuns: 2000 },
  )
})
