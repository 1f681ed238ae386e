import { describe, expect, it } from 'vitest'
import { ScorerError } from '../../../src/core/support/errors.ts'
import { Aggregate } from '../../../src/core/evaluate/aggregate.ts'
import { resolveSettings } from '../../../src/core/evaluate/options.ts'
import { chunks, planEvaluation, presented, type Plan } from '../../../src/core/evaluate/plan.ts'
import type { Scored } from '../../../src/core/evaluate/score.ts'
import { scoreFailure, type ScoreFailure } from '../../../src/core/scorer/contract.ts'
import { decision } from '../../helpers/decisions.ts'

/** Feed every chunk of `plan` to `aggregate`, each request answered by `answer`. */
function feed(plan: Plan, aggregate: Aggregate, answer: (row: number, slotCount: number) => number[] | ScoreFailure): void {
  for (const { jobs } of chunks(plan, 1, 100)) {
    const scored: Scored = { vectors: [], sums: new Float64Array(jobs.length), failures: [], flags: [] }
    jobs.forEach((job, i) => {
      const outcome = answer(job.row, plan.orderings[job.row]![0]!.length)
      if (Array.isArray(outcome)) {
        scored.vectors[i] = outcome
        scored.sums[i] = outcome.reduce((s, v) => s + v, 0)
      } else scored.failures[i] = outcome
    })
    aggregate.add({ jobs, criteria: jobs.map((job) => presented(plan, job)), scored })
  }
}

describe('aggregate stage', () => {
  it('a reader that always answers slot A spreads its totals evenly over the option ids under cyclic orderings', () => {
    const settings = resolveSettings({ debias: 'cyclic' })
    const plan = planEvaluation([decision(3, 0), decision(3, 2)], settings, () => {})
    const aggregate = new Aggregate(plan, settings, undefined)
    feed(plan, aggregate, () => [0.7, 0.2, 0.1])
    // each id sat in each slot once: (0.7 + 0.2 + 0.1) / 3 per id
    for (const total of aggregate.totals) expect(total).toBeCloseTo(1 / 3, 15)
    expect(aggregate.picks[0]).toEqual(['o0', 'o1', 'o2'])
    expect(aggregate.pickedLetters[1]).toEqual(['A', 'A', 'A'])
    expect(aggregate.letterCounts.slice(0, 3)).toEqual([6, 0, 0])
  })

  it('under log averaging, totals are mean log p per id', () => {
    const settings = resolveSettings({ debias: 'none', average: 'log' })
    const plan = planEvaluation([decision(2, 0)], settings, () => {})
    const aggregate = new Aggregate(plan, settings, undefined)
    feed(plan, aggregate, () => [3, 1])
    expect(Array.from(aggregate.totals)).toEqual([Math.log(0.75), Math.log(0.25)])
  })

  it('divides out the prior it is given, and refuses a vector whose prior is missing', () => {
    const settings = resolveSettings({ debias: 'none' })
    const plan = planEvaluation([decision(2, 0)], settings, () => {})
    const withPrior = new Aggregate(plan, settings, () => [0.8, 0.2])
    feed(plan, withPrior, () => [0.8, 0.2])
    expect(Array.from(withPrior.totals)).toEqual([0.5, 0.5])
    const without = new Aggregate(plan, { ...settings, debias: 'calibrated' }, () => undefined)
    expect(() => feed(plan, without, () => [0.8, 0.2])).toThrow(/no calibrated prior for criterion "c"/)
  })

  it('finish takes back the letters of a decision that failed after an ordering succeeded, and fails a run with nothing scored', () => {
    const settings = resolveSettings({ debias: 'cyclic' })
    const plan = planEvaluation([decision(2, 0), decision(2, 1)], settings, () => {})
    const aggregate = new Aggregate(plan, settings, undefined)
    let call = 0
    feed(plan, aggregate, (row) => (row === 1 && call++ > 0 ? scoreFailure('timeout', 'slow') : [0.9, 0.1]))
    expect(aggregate.failures.get(1)).toMatchObject({ failure: 'timeout' })
    aggregate.finish()
    expect(aggregate.letterCounts.slice(0, 2)).toEqual([2, 0]) // row 0's two picks only
    const failing = new Aggregate(plan, settings, undefined)
    feed(plan, failing, () => scoreFailure('http_error', 'down'))
    expect(() => failing.finish()).toThrow(ScorerError)
    expect(() => failing.finish()).toThrow(/every decision failed to score \(http_error 2\)/)
  })
})
