import { Experimental_DecisionMockModelV4 } from 'ai/test'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { describe, expect, it } from 'vitest'
import { criterionFromDecideQuestion, decisionModelScorer } from '../../../src/scorers/ai/index.ts'
import { withCache } from '../../../src/cache/index.ts'
import { evaluateWithScorer, resultToJson, type Decision } from '../../../src/core/index.ts'
import { render } from '../../../src/report/index.ts'
import { renderHtmlReport } from '../../../src/report/index.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { biased, startFakeDecisions, tiedSecond } from '../../helpers/fake-decisions.mjs'
import { useTempDirs } from '../../helpers/temp.ts'

const temp = useTempDirs('decide-cache-')

/** A decision model answering `choice` only, like the Anthropic adapter: the option shown first, or the state's match. */
function choiceOnly(byState = false) {
  return new Experimental_DecisionMockModelV4({
    provider: 'mock.decision',
    modelId: 'choice-only',
    doDecide: async ({ questions, state }) => {
      const text = state.map((part) => (part.type === 'text' ? part.text : '')).join('')
      const answers = Object.fromEntries(
        Object.entries(questions).map(([name, question]) => {
          const criteria = (question as { criteria: Record<string, string> }).criteria
          const keys = Object.keys(criteria)
          const hit = keys.find((key) => text.includes(criteria[key]!))
          return [name, { type: 'choice' as const, choice: byState && hit ? hit : keys[0]! }]
        }),
      )
      return { answers, warnings: [] }
    },
  })
}

const question = {
  type: 'choice',
  instructions: 'Which team should handle this?',
  criteria: { billing: 'Payments and refunds', support: 'Other requests', legal: 'Contracts' },
} as const

function decisions(n: number): Decision[] {
  const criterion = criterionFromDecideQuestion('department', question)
  return Array.from({ length: n }, (_, d) => ({
    id: `t${d}`,
    state: `Message ${d} about ${criterion.options[d % 3]!.text}`,
    criterion,
    answer_id: criterion.options[d % 3]!.id,
  }))
}

describe('decision models without a distribution, ties and the cache', () => {
  it('criterionFromDecideQuestion reads options from criteria and the question from instructions', () => {
    expect(criterionFromDecideQuestion('department', question)).toEqual({
      key: 'department',
      question: 'Which team should handle this?',
      options: [
        { id: 'billing', text: 'Payments and refunds' },
        { id: 'support', text: 'Other requests' },
        { id: 'legal', text: 'Contracts' },
      ],
    })
    const plain = criterionFromDecideQuestion('k', { type: 'choice', criteria: { a: { rule: 'x' }, b: null } })
    expect(plain).toEqual({ key: 'k', options: [{ id: 'a', text: '{"rule":"x"}' }, { id: 'b', text: 'b' }] })
    expect(() => criterionFromDecideQuestion('k', { type: 'boolean', instructions: 'Refund?' })).toThrow(ConfigError)
    expect(() => criterionFromDecideQuestion('k', { type: 'choice', criteria: { only: 'one' } })).toThrow(/at least 2 options/)
  })

  it('no distribution: one-hot on the choice, flagged, ECE and Brier not measured, the report says why', async () => {
    const result = await evaluateWithScorer(decisions(6), decisionModelScorer(choiceOnly()), { debias: 'cyclic', statistics: false })
    expect(result.orderConsistency).toBe(0)
    expect(result.letterDistribution.A).toBe(1)
    expect(result.manifest.flagged).toEqual({ no_distribution: 6 })
    expect(result.ece).toBeNull()
    expect(result.brier).toBeNull()
    const text = render(result, { color: false })
    expect(text).toMatch(/ece\s+n\/a\s+not measured: the model gave no probabilities \(6 decisions flagged no_distribution\)/)
    expect(text).toMatch(/brier\s+n\/a\s+not measured/)
    const html = renderHtmlReport({ result: resultToJson(result), records: result.records })
    expect(html).toContain('not measured: the model gave no probabilities')
    // A model that reads the state is right under every ordering, still flagged.
    const reading = await evaluateWithScorer(decisions(6), decisionModelScorer(choiceOnly(true)), { debias: 'cyclic', statistics: false })
    expect([reading.accuracy, reading.orderConsistency, reading.ece]).toEqual([1, 1, null])
  })

  it("a rounded tie is decided by the model's choice, not by the first maximum or a split", async () => {
    const server = await startFakeDecisions({ decide: tiedSecond() })
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-local-test-key' }).decisionModel('gpt-6-luna')
    try {
      const result = await evaluateWithScorer(decisions(3), decisionModelScorer(model), { debias: 'cyclic', statistics: false })
      // Slot B chosen under every rotation: a position-biased model, counted on letter B only.
      expect(result.letterDistribution).toEqual({ A: 0, B: 1, C: 0 })
      expect(result.orderConsistency).toBe(0)
    } finally {
      await server.close()
    }
  })

  it('the cache keys on provider, model, question, state and order, and re-checks hits live', async () => {
    const dir = temp()
    let first = 0.7
    const server = await startFakeDecisions({ decide: (q: any) => biased(first)(q) })
    const openai = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-local-test-key' })
    const run = (modelId = 'gpt-6-luna') =>
      evaluateWithScorer(decisions(4), withCache(decisionModelScorer(openai.decisionModel(modelId)), { cache: { dir, mode: 'read-write' } }), {
        debias: 'cyclic',
        statistics: false,
      })
    try {
      const cold = await run()
      expect(cold.manifest.cache).toMatchObject({ hits: 0, misses: 12 })
      expect(server.calls).toBe(12)
      const warm = await run()
      expect(warm.manifest.cache).toMatchObject({ hits: 12, misses: 0, verified: 8 })
      expect(server.calls).toBe(20)
      expect(warm.records).toEqual(cold.records)
      // Another model id is another key.
      const other = await run('gpt-6-luna-mini')
      expect(other.manifest.cache).toMatchObject({ hits: 0, misses: 12 })
      // The deployment changed under the same name: the live re-check fails the run.
      first = 0.9
      await expect(run()).rejects.toThrow(/answers changed under the same model name/)
    } finally {
      await server.close()
    }
  })
})
