// The exact one-sided McNemar of the regression gate, and its power check.
import { describe, expect, test } from 'vitest'
import { mcnemarRegression, minimumDetectableDiscordant, powerCheck } from '../../../src/core/statistics/regression-gate.ts'

describe('exact one-sided McNemar (McNemar 1947)', () => {
  test('one-sided p on the discordant pairs', () => {
    expect(mcnemarRegression(6, 1).p).toBeCloseTo(8 / 128, 12) // b = 1, c = 6 → 0.0625
    expect(mcnemarRegression(5, 0).p).toBeCloseTo(1 / 32, 12)
    expect(mcnemarRegression(8, 3).p).toBeCloseTo((165 + 55 + 11 + 1) / 2048, 12)
    expect(mcnemarRegression(1000, 1000).p).toBeGreaterThan(0.5)
    expect(mcnemarRegression(1000, 1000).p).toBeLessThan(0.52)
  })

  test('regression direction: worse counts against, better in favour', () => {
    expect(mcnemarRegression(6, 0).p).toBeCloseTo(1 / 64, 12)
    expect(mcnemarRegression(0, 6).p).toBe(1)
    expect(mcnemarRegression(0, 0).p).toBe(1)
  })

  test('five one-way flips are the fewest that can be significant at 0.05', () => {
    expect(minimumDetectableDiscordant(0.05)).toBe(5)
    expect(minimumDetectableDiscordant(0.0625)).toBe(5) // 2^-4 = 0.0625 is not < 0.0625
    expect(minimumDetectableDiscordant(0.01)).toBe(7)
    expect(powerCheck(30, 30, 0.1, 0.05)).toMatchObject({ detectable: false, decisionsForDrop: 3, bestCaseP: 0.125, minimumFlips: 5 })
    expect(powerCheck(56, 56, 0.1, 0.05)).toMatchObject({ detectable: true, decisionsForDrop: 6 })
    expect(powerCheck(100, 3, 0.1, 0.05).detectable).toBe(false) // only 3 consistent at baseline
  })
})
