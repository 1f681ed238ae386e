// The scorer's description has one name: a scorer's `description` property, the options'
// `scorerDescription`, and `manifest.scorer` in the JSON. Old names are refused, not ignored.
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import type { EvaluateOptions, ScoreFn } from '../../../src/core/index.ts'
import { describeScorer, ownDescription } from '../../../src/core/scorer/description.ts'
import { decision } from '../../helpers/decisions.ts'

const data = [decision(2, 0, { id: 'a' }), decision(3, 1, { id: 'b' })]
const quiet = { onWarning: () => {}, statistics: false } as const
const flat = (): ScoreFn => (requests) => requests.map((r) => r.criterion.options.map(() => 1))

describe('describeScorer: the one default', () => {
  it('own description, else `name (ScoreFn)`, else (injected scorer)', () => {
    expect(describeScorer(Object.assign(flat(), { description: 'onnx models/tiny' }))).toBe('onnx models/tiny')
    const named = flat()
    expect(named.name).toBe('')
    expect(describeScorer(named)).toBe('(injected scorer)')
    function reader(): number[][] {
      return []
    }
    expect(describeScorer(reader)).toBe('reader (ScoreFn)')
    expect(ownDescription(Object.assign(flat(), { description: '' }))).toBeUndefined()
    expect(ownDescription(undefined)).toBeUndefined()
  })
})

describe('evaluateWithScorer records the description as manifest.scorer', () => {
  it("the scorer's `description`, overridden by `scorerDescription`", async () => {
    const score = Object.assign(flat(), { description: 'openai m completions at http://127.0.0.1:1/v1/completions' })
    expect((await evaluateWithScorer(data, score, quiet)).manifest.scorer).toBe(score.description)
    expect((await evaluateWithScorer(data, score, { ...quiet, scorerDescription: 'mine' })).manifest.scorer).toBe('mine')
  })

  it('a `describe` property (the old name) is not read: one name per concept', async () => {
    const score = Object.assign(flat(), { describe: 'old name' })
    expect((await evaluateWithScorer(data, score, quiet)).manifest.scorer).toBe('(injected scorer)')
  })

  it('the old option `scorer` is refused naming the new one, not silently ignored', async () => {
    const old = { ...quiet, scorer: 'mine' } as unknown as EvaluateOptions
    await expect(evaluateWithScorer(data, flat(), old)).rejects.toThrow(ConfigError)
    await expect(evaluateWithScorer(data, flat(), old)).rejects.toThrow('evaluateWithScorer: the option `scorer` is now `scorerDescription`; rename it')
  })
})
