import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decisionId, implicitId } from '../../../src/core/decisions/id.ts'
import { parseDecisions, validateDecisions } from '../../../src/core/decisions/load.ts'
import { DataError } from '../../../src/core/support/errors.ts'
import { evaluateWithScorer } from '../../../src/core/index.ts'
import { byId, decision } from '../../helpers/decisions.ts'

const quiet = { statistics: false, onWarning: () => {} } as const

/** A JSONL line: labelled (answer o0) or not, with or without an id. */
const line = (id: string | null, labelled = true) => JSON.stringify({ ...decision(2, labelled ? 0 : null), id: id ?? undefined })

describe('the implicit decision id', () => {
  it('is the 1-based position among labelled rows; a given id wins', () => {
    expect([0, 1, 9].map(implicitId)).toEqual(['#1', '#2', '#10'])
    expect(decisionId({}, 2)).toBe('#3')
    expect(decisionId({ id: null }, 0)).toBe('#1')
    expect(decisionId({ id: 't-1' }, 0)).toBe('t-1')
  })

  it('is what records carry, unlabelled rows not counted', async () => {
    const rows = [decision(2, 0, { id: 'a' }), { ...decision(2, null), id: undefined }, { ...decision(2, 1), id: undefined }, { ...decision(2, 0), id: undefined }]
    const result = await evaluateWithScorer(rows, byId(() => 1), quiet)
    expect(result.records.map((r) => r.id)).toEqual(['a', '#2', '#3'])
  })

  it('a given id equal to a later row\'s implicit one is a DataError on that row, field id', () => {
    const text = [line('#2'), line(null, false), line(null)].join('\n')
    // Line 3 is the second labelled row and has no id: it would be "#2" as well.
    expect(() => parseDecisions(text, 'data.jsonl')).toThrow(DataError)
    expect(() => parseDecisions(text, 'data.jsonl')).toThrow(/^data\.jsonl:3, field "id": this labelled row has no id, so it goes by "#2" .*line 1 gives "#2" as its id/)
  })

  it('a given id equal to an earlier row\'s implicit one is a DataError on the later row, field id', () => {
    const text = [line(null), line(null), line('#1')].join('\n')
    expect(() => parseDecisions(text, 'data.jsonl')).toThrow(/^data\.jsonl:3, field "id": decision id "#1" is the implicit id of the labelled row on line 1/)
  })

  it('an unlabelled row takes no implicit id, so "#2" on a later row is free', () => {
    const text = [line(null), line(null, false), line('#2')].join('\n')
    expect(parseDecisions(text, 'data.jsonl')).toHaveLength(3)
  })

  it('the API boundary applies the same rule (array element as the line)', async () => {
    const rows = [decision(2, 0, { id: '#2' }), { ...decision(2, 1), id: undefined }]
    await expect(evaluateWithScorer(rows, byId(() => 1), quiet)).rejects.toThrow(/^<decisions>:2, field "id": this labelled row has no id, so it goes by "#2"/)
  })

  it('property: whenever a set is accepted, its records have distinct ids', async () => {
    const row = fc.record({ id: fc.constantFrom(null, '#1', '#2', '#3', 'a'), labelled: fc.boolean() })
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 6 }), async (rows) => {
        const decisions = rows.map(({ id, labelled }) => ({ ...decision(2, labelled ? 0 : null), id: id ?? undefined }))
        let accepted
        try {
          accepted = validateDecisions(decisions)
        } catch (error) {
          expect(error).toBeInstanceOf(DataError)
          expect((error as DataError).field).toBe('id')
          return
        }
        if (!accepted.some((d) => d.answer_id != null)) return
        const result = await evaluateWithScorer(accepted, byId(() => 1), quiet)
        expect(new Set(result.records.map((r) => r.id)).size).toBe(result.records.length)
      }),
      { numRuns: 200 },
    )
  })
})
