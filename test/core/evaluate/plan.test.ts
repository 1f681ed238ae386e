import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DataError } from '../../../src/core/support/errors.ts'
import { resolveSettings } from '../../../src/core/evaluate/options.ts'
import { chunks, planEvaluation } from '../../../src/core/evaluate/plan.ts'
import { decision } from '../../helpers/decisions.ts'

const none = () => {}

describe('plan stage', () => {
  it('keeps the labelled rows, warns once about the rest, and refuses a set with none', () => {
    const warnings: string[] = []
    const rows = [decision(3, 0), decision(3, null), decision(4, 1), decision(3, null)]
    const plan = planEvaluation(rows, resolveSettings({ debias: 'cyclic', epochs: 2 }), (m) => warnings.push(m))
    expect(plan.rows).toEqual([rows[0], rows[2]])
    expect(plan.skipped).toBe(2)
    expect(warnings).toEqual([expect.stringContaining('skipping 2 unlabelled')])
    // cyclic: k rotations each, times the epochs
    expect(plan.orderings.map((set) => set.length)).toEqual([3, 4])
    expect(plan.requestsTotal).toBe((3 + 4) * 2)
    expect(() => planEvaluation([decision(3, null)], resolveSettings({}), none)).toThrow(DataError)
  })

  it('pride: per option count max(1, round(α·N)) rows get every rotation, and they are scored first', () => {
    const rows = [...Array.from({ length: 40 }, (_, i) => decision(4, i % 4)), ...Array.from({ length: 3 }, (_, i) => decision(2, i % 2))]
    const plan = planEvaluation(rows, resolveSettings({ debias: 'pride', prideFraction: 0.1, seed: 3 }), none)
    const sampled = [...plan.sampled!]
    expect(sampled.filter((r) => r < 40)).toHaveLength(4) // round(0.1 · 40)
    expect(sampled.filter((r) => r >= 40)).toHaveLength(1) // max(1, round(0.3))
    expect(plan.rowOrder.slice(0, 5).sort((a, b) => a - b)).toEqual(sampled.sort((a, b) => a - b))
    plan.orderings.forEach((set, r) => expect(set.length).toBe(plan.sampled!.has(r) ? rows[r]!.criterion.options.length : 1))
    expect(plan.requestsTotal).toBe(4 * 4 + 36 + 2 + 2)
  })

  it('property: chunks cover every (row, ordering, epoch) once, keep decisions whole, stay within chunkSize, never mix pride phases', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 5 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('none', 'cyclic', 'pride' as const),
        (counts, epochs, chunkSize, debias) => {
          const rows = counts.map((k, i) => decision(k, i % k, { id: `d${i}` }))
          const plan = planEvaluation(rows, resolveSettings({ debias: debias as 'none', epochs, prideFraction: 0.3 }), none)
          const seen = new Set<string>()
          let rowsDone = 0
          for (const chunk of chunks(plan, epochs, chunkSize)) {
            const inChunk = new Set(chunk.jobs.map((job) => job.row))
            for (const job of chunk.jobs) {
              const key = `${job.row}/${job.o}/${job.epoch}`
              expect(seen.has(key)).toBe(false)
              seen.add(key)
              expect(plan.sampled?.has(job.row) ?? false).toBe(chunk.inSample)
            }
            const whole = [...inChunk].reduce((n, r) => n + plan.orderings[r]!.length * epochs, 0)
            expect(chunk.jobs.length).toBe(whole)
            if (inChunk.size > 1) expect(chunk.jobs.length).toBeLessThanOrEqual(chunkSize)
            rowsDone += inChunk.size
            expect(chunk.rowsDone).toBe(rowsDone)
          }
          expect(seen.size).toBe(plan.requestsTotal)
        },
      ),
    )
  })
})
