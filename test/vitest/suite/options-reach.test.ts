// Every evaluate option describeDecisions documents reaches evaluateWithScorer: prideFraction,
// statistics, chunkSize and a reducer named as the manifest records it.
import { describe, expect, it } from 'vitest'
import type { EvalResult, ScoreRequest } from '../../../src/core/index.ts'
import { describeDecisions } from '../../../src/vitest/suite/describe-decisions.ts'
import { decision } from '../../helpers/decisions.ts'

// 20 three-option decisions; the scorer counts requests and the size of every call.
const data = Array.from({ length: 20 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: `s${i}` }))
function counting() {
  const calls: number[] = []
  const score = (batch: readonly ScoreRequest[]) => {
    calls.push(batch.length)
    return batch.map((r) => r.criterion.options.map((o) => (o.id === `o${Number(r.state.slice(1)) % 3}` ? 3 : 1)))
  }
  return { calls, score }
}
const base = { data, cache: false, baseline: false } as const
const results: Record<string, { result: EvalResult; calls: number[] }> = {}
function suite(name: string, options: Omit<Parameters<typeof describeDecisions>[1], 'data' | 'scorer'>): void {
  const { calls, score } = counting()
  describeDecisions(name, { ...base, ...options, scorer: score }, (result) => {
    results[name] = { result, calls }
  })
}

suite('pride default', { debias: 'pride' })
suite('pride half', { debias: 'pride', prideFraction: 0.5 })
suite('no statistics', { debias: 'none', statistics: false })
suite('statistics', { debias: 'none' })
suite('chunked', { debias: 'cyclic', chunkSize: 7 })
suite('pass_at_2', { debias: 'none', epochs: 2, reducer: 'pass_at_2' })

describe('describeDecisions passes every evaluate option through', () => {
  it('prideFraction: 0.5 samples round(0.5·20) = 10 decisions under all 3 rotations (10·3 + 10 requests), the default round(0.05·20) = 1', () => {
    const half = results['pride half']!
    expect(half.result.manifest.pride).toMatchObject({ fraction: 0.5 })
    expect((half.result.manifest.pride as { sampled: string[] }).sampled).toHaveLength(10)
    expect(half.calls.reduce((a, b) => a + b, 0)).toBe(40)
    const fallback = results['pride default']!
    expect(fallback.result.manifest.pride).toMatchObject({ fraction: 0.05 })
    expect(fallback.calls.reduce((a, b) => a + b, 0)).toBe(1 * 3 + 19)
  })

  it('statistics: false leaves the result without statistics; the default attaches them', () => {
    expect(results['no statistics']!.result.statistics).toBeUndefined()
    expect(results['statistics']!.result.statistics).toBeDefined()
  })

  it('chunkSize: 7 splits the 60 cyclic requests into calls of at most 7', () => {
    const { calls } = results['chunked']!
    expect(calls.reduce((a, b) => a + b, 0)).toBe(60)
    expect(Math.max(...calls)).toBeLessThanOrEqual(7)
  })

  it("reducer: 'pass_at_2' (the name the manifest records) is accepted and recorded as is", () => {
    const { result, calls } = results['pass_at_2']!
    expect(result.manifest).toMatchObject({ reducer: 'pass_at_2', epochs: 2 })
    expect(calls.reduce((a, b) => a + b, 0)).toBe(40)
  })
})
