import { describe, expect, it } from 'vitest'
import { circularRegression, strictFlags } from '../../src/vitest/circular-gate.ts'

const record = (id: string, picks: string[], gold = 'a') => ({ id, gold, picks })

describe('baseline gate: strict correctness (circularAccuracy)', () => {
  it('a decision is strictly correct only when every ordering picked gold; repeated ids kept apart; prototype-named ids are data', () => {
    const flags = strictFlags([record('x', ['a', 'a']), record('y', ['a', 'b']), record('x', ['b', 'b']), record('__proto__', ['a'])])
    expect([...flags]).toEqual([
      ['x', true],
      ['y', false],
      ['x~2', false],
      ['__proto__', true],
    ])
  })

  it('paired exact McNemar: 6 newly wrong, 0 newly right gives p = 2^-6 (regressed at α = 0.05); 3 vs 8 gives p ≈ 0.97', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `d${i}`)
    const before = new Map(ids.map((id) => [id, true]))
    const after = new Map(ids.map((id, i) => [id, i >= 6]))
    expect(circularRegression(before, after, 0.05)).toEqual({ worse: 6, better: 0, p: 2 ** -6, regressed: true })
    // 3 worse, 8 better: P(Bin(11, ½) ≥ 3) = 1 − (1 + 11 + 55)/2048.
    const base = new Map(ids.map((id, i) => [id, i < 3]))
    const now = new Map(ids.map((id, i) => [id, i >= 3 && i < 11]))
    const result = circularRegression(base, now, 0.05)
    expect(result).toMatchObject({ worse: 3, better: 8, regressed: false })
    expect(result.p).toBeCloseTo(1 - 67 / 2048, 12)
    // Ids on one side only are not paired.
    expect(circularRegression(new Map([['gone', true]]), new Map([['new', false]]), 0.05)).toEqual({ worse: 0, better: 0, p: 1, regressed: false })
  })
})
