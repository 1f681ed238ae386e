import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { validateDecision } from '../../../src/core/decisions/load.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { DataError } from '../../../src/core/support/errors.ts'
import type { ScoreOutcome } from '../../../src/core/scorer/contract.ts'
import { AnswerLineSchema, parsePartFile, RowLineSchema } from '../../../src/core/shards/part-file.ts'
import { EMPTY_PART_HEADER } from '../../helpers/part-file.ts'

/** The decoder before the hand-checked fast paths: every line after the header through its zod schema. */
function zodOnly(lines: readonly string[], file: string): { rows: { position: number; decision: Decision }[]; answers: { key: string; outcome: ScoreOutcome }[] } {
  const rows: { position: number; decision: Decision }[] = []
  const answers: { key: string; outcome: ScoreOutcome }[] = []
  lines.forEach((line, i) => {
    const value = JSON.parse(line) as unknown
    const schema = (value as { key?: unknown })?.key !== undefined ? AnswerLineSchema : RowLineSchema
    const parsed = schema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      throw new DataError(issue.message, { file, line: i + 2, field: issue.path.join('.') || '(line)' })
    }
    if ('key' in parsed.data) answers.push(parsed.data as { key: string; outcome: ScoreOutcome })
    else rows.push({ position: parsed.data.position, decision: validateDecision(parsed.data.decision, { file, line: i + 2 }) })
  })
  return { rows, answers }
}

const header = EMPTY_PART_HEADER

const decision = fc.oneof(
  fc.constant({ id: 'a', state: 's', criterion: { key: 'q', options: [{ id: 'x', text: 'X' }, { id: 'y', text: 'Y' }] }, answer_id: 'x' }),
  fc.constant({ state: 's', criterion: { key: 'q', options: [{ id: 'x', text: 'X' }] } }),
  fc.jsonValue(),
)
const number = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(2 ** 53), fc.constant(-0))
/** Lines near the row and answer shapes: right ones, and each way to be almost right. */
const line = fc.oneof(
  fc.record({ position: number, decision }, { requiredKeys: [] }),
  fc.record({ position: number, decision, extra: fc.jsonValue() }),
  fc.record({ key: fc.oneof(fc.string(), fc.integer()), outcome: fc.oneof(fc.array(number), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.jsonValue()) }, { requiredKeys: [] }),
  fc.record({ key: fc.string(), outcome: fc.array(number), extra: fc.jsonValue() }),
  fc.record({ key: fc.string(), outcome: fc.record({ failure: fc.string(), message: fc.string() }) }),
  fc.record({ key: fc.string(), outcome: fc.record({ probabilities: fc.array(number), flags: fc.array(fc.string()) }) }),
  fc.jsonValue(),
)

describe('part file decoding', () => {
  it('accepts and rejects exactly what the line schemas do, with the same rows, answers and file:line:field errors', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (values) => {
        const lines = values.map((v) => JSON.stringify(v) ?? 'null')
        const text = header + lines.join('\n') + '\n'
        let expected: unknown
        try {
          expected = zodOnly(lines, 'p.shard.jsonl')
        } catch (error) {
          expected = (error as Error).message
        }
        let actual: unknown
        try {
          const { rows, answers } = parsePartFile(text, 'p.shard.jsonl')
          actual = { rows, answers }
        } catch (error) {
          actual = (error as Error).message
        }
        expect(actual).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('names file, line and field for a row whose position is not a non-negative integer', () => {
    for (const position of [-1, 1.5, 2 ** 53, '1'])
      expect(() => parsePartFile(`${header}${JSON.stringify({ position, decision: {} })}\n`, 'p.shard.jsonl')).toThrow(/^p\.shard\.jsonl:2.*position/)
    expect(() => parsePartFile(`${header}${JSON.stringify({ position: 0, decision: {}, x: 1 })}\n`, 'p.shard.jsonl')).toThrow(/^p\.shard\.jsonl:2/)
  })
})
