import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { Aggregate } from '../../../src/core/evaluate/aggregate.ts'
import { assembleResult } from '../../../src/core/evaluate/assemble.ts'
import { resolveSettings } from '../../../src/core/evaluate/options.ts'
import { chunks, planEvaluation, presented } from '../../../src/core/evaluate/plan.ts'
import { decisionOutcomes } from '../../../src/core/evaluate/records.ts'
import type { Scored } from '../../../src/core/evaluate/score.ts'
import { decision } from '../../helpers/decisions.ts'

/** Plan, score every request with `vector` under cyclic orderings, aggregate. */
function run(vector: number[], answers: number[], options = {}) {
  const settings = resolveSettings({ debias: 'cyclic', ...options })
  const plan = planEvaluation(answers.map((a, i) => decision(vector.length, a, { id: `d${i}` })), settings, () => {})
  const aggregate = new Aggregate(plan, settings, undefined)
  for (const { jobs } of chunks(plan, settings.epochs, 1000)) {
    const scored: Scored = { vectors: jobs.map(() => vector), sums: new Float64Array(jobs.length).fill(vector.reduce((s, v) => s + v, 0)), failures: [], flags: [] }
    aggregate.add({ jobs, criteria: jobs.map((job) => presented(plan, job)), scored })
  }
  aggregate.finish()
  return { plan, aggregate, settings }
}

describe('records and assemble stages', () => {
  it('a tie in the totals is no answer: prediction null, the tied ids listed, never a hit', () => {
    const { plan, aggregate, settings } = run([0.6, 0.3, 0.1], [2, 0])
    const outcomes = decisionOutcomes(plan, aggregate, settings, { withSamples: true })
    expect(outcomes.predictions).toEqual([null, null])
    expect(outcomes.hits).toEqual([false, false])
    expect(outcomes.tiedDecisions).toBe(2)
    expect(outcomes.records[0]).toMatchObject({ id: 'd0', gold: 'o2', prediction: null, tied: ['o0', 'o1', 'o2'], picks: ['o0', 'o1', 'o2'], letters: ['A', 'A', 'A'] })
    expect(outcomes.records[0]!.promptHash).toMatch(/^[0-9a-f]{16}$/)
    expect(outcomes.records[0]!.prompt).toBeUndefined()
    expect(outcomes.samples.map((s) => s.consistent)).toEqual([false, false])
    expect(outcomes.samples.map((s) => s.prediction)).toEqual([null, null])
    expect(outcomes.valueSum).toBe(0)
  })

  it('promptHash is the first 16 hex digits of the sha256 of the first presentation\'s prompt, UTF-8', () => {
    const settings = resolveSettings({ debias: 'cyclic' })
    const data = [decision(3, 1, { id: 'd0', state: 'Größe — 票 🎫' }), decision(3, 0, { id: 'd1' })]
    const plan = planEvaluation(data, settings, () => {})
    const aggregate = new Aggregate(plan, settings, undefined)
    for (const { jobs } of chunks(plan, settings.epochs, 1000))
      aggregate.add({ jobs, criteria: jobs.map((job) => presented(plan, job)), scored: { vectors: jobs.map(() => [3, 2, 1]), sums: new Float64Array(jobs.length).fill(6), failures: [], flags: [] } })
    aggregate.finish()
    const { records } = decisionOutcomes(plan, aggregate, settings, { storePrompts: true, withSamples: false })
    expect(records[0]!.prompt).toContain('Größe — 票 🎫')
    for (const record of records) expect(record.promptHash).toBe(createHash('sha256').update(Buffer.from(record.prompt!, 'utf8')).digest('hex').slice(0, 16))
  })

  it('the result counts every request in forwardPasses and reports the picked letters', () => {
    const { plan, aggregate, settings } = run([0.6, 0.4], [0, 1, 0])
    const outcomes = decisionOutcomes(plan, aggregate, settings, { withSamples: false })
    const facts = { startedAt: 0, seconds: 1.5, contentFreeRequests: 7, slotPriors: new Map(), scorer: 'test', cache: undefined }
    const result = assembleResult(plan, aggregate, outcomes, settings, { statistics: false }, facts)
    expect(result.manifest).toMatchObject({ forwardPasses: 3 * 2 + 7, decisions: 3, orderingsScored: 2, scorer: 'test', seconds: 1.5, started: '1970-01-01T00:00:00.000Z' })
    expect(result.letterDistribution).toMatchObject({ A: 1, B: 0 })
    expect(result.orderConsistency).toBe(0)
    expect(result.statistics).toBeUndefined()
    expect(result.n).toBe(3)
  })
})
