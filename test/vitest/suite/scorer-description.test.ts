// describeDecisions names the scorer as evaluateWithScorer does: `scorerDescription`, else the
// handle's or the function's `description`, else the function's name. `scorerName` is refused.
import { describe, expect, it } from 'vitest'
import type { EvalResult, ScoreFn } from '../../../src/core/index.ts'
import { describeDecisions } from '../../../src/vitest/suite/describe-decisions.ts'
import type { DescribeDecisionsOptions } from '../../../src/suite/options.ts'
import { decision } from '../../helpers/decisions.ts'

const data = [decision(2, 0, { id: 'a' }), decision(3, 1, { id: 'b' })]
const base = { data, cache: false, baseline: false, debias: 'none', statistics: false } as const
const scorers: Record<string, string> = {}
function suite(name: string, options: Omit<DescribeDecisionsOptions, 'data'>): void {
  describeDecisions(name, { ...base, ...options }, (result: EvalResult) => {
    scorers[name] = result.manifest.scorer
  })
}
function flatReader(requests: Parameters<ScoreFn>[0]): number[][] {
  return requests.map((r) => r.criterion.options.map(() => 1))
}

suite('option', { scorer: Object.assign(flatReader.bind(null), { description: 'own' }), scorerDescription: 'option wins' })
suite('property', { scorer: Object.assign((requests: Parameters<ScoreFn>[0]) => flatReader(requests), { description: 'onnx models/tiny' }) })
suite('handle', { scorer: { score: flatReader, description: 'handle' } })
suite('name', { scorer: flatReader })

describe('describeDecisions: the scorer description', () => {
  it('scorerDescription, else description (function or handle), else `name (ScoreFn)`', () => {
    expect(scorers).toEqual({ option: 'option wins', property: 'onnx models/tiny', handle: 'handle', name: 'flatReader (ScoreFn)' })
  })

  it('the old option scorerName is refused naming the new one', () => {
    const old = { ...base, scorer: flatReader, scorerName: 'x' } as unknown as DescribeDecisionsOptions
    expect(() => describeDecisions('old', old)).toThrow('describeDecisions("old"): the option `scorerName` is now `scorerDescription`; rename it')
  })
})
