// The letter-distribution snapshot adapter: its text form and the tolerance.
import { describe, expect, test } from 'vitest'
import { compareDistributions, parseDistribution, renderDistribution } from '../../../src/suite/assertions/snapshot.ts'

describe('letter-distribution snapshot adapter', () => {
  test('round trip and tolerance', () => {
    const text = renderDistribution({ B: 0.25, A: 0.75 })
    expect(text).toBe('\nA=0.750\nB=0.250\n')
    expect(parseDistribution(text)).toEqual({ A: 0.75, B: 0.25 })
    const within = compareDistributions({ A: 0.79, B: 0.21 }, { A: 0.75, B: 0.25 }, 0.05)
    // Within tolerance the stored values are kept, so `-u` rewrites identical text.
    expect(within).toMatchObject({ pass: true, resolved: { A: 0.75, B: 0.25 } })
    const outside = compareDistributions({ A: 0.9, B: 0.1 }, { A: 0.75, B: 0.25 }, 0.05)
    expect(outside.pass).toBe(false)
    expect(outside.resolved).toEqual({ A: 0.9, B: 0.1 })
    expect(compareDistributions({ A: 0.5, B: 0.5, C: 0 }, { A: 0.5, B: 0.5 }, 0.05).offending).toEqual([{ letter: 'C', actual: 0, expected: null }])
  })
})
