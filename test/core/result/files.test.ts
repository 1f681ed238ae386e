import { describe, expect, expectTypeOf, it } from 'vitest'
import type { z } from 'zod'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { DataError } from '../../../src/core/support/errors.ts'
import { cpuKind } from '../../../src/core/support/cpu-kind.ts'
import { DecisionRecordSchema, type DecisionRecord } from '../../../src/core/result/record.ts'
import { parseComparable, parseRecordsJsonl, parseResultJson } from '../../../src/core/result/files.ts'
import { EvalResultJsonSchema, EvalResultSchema, recordsToJsonl, resultToJson, type EvalResult, type EvalResultJson } from '../../../src/core/result/result.ts'
import { byId, decision } from '../../helpers/decisions.ts'

const quiet = { onWarning: () => {}, statistics: false } as const

/** Three decisions scored twice per ordering with prompts kept: records carry every optional field. */
async function fullResult(): Promise<EvalResult> {
  const rows = [decision(3, 0, { id: 'a' }), decision(2, 1, { id: 'b' }), decision(4, 3, { id: 'c' })]
  let call = 0
  const flaky = byId((id) => (id === 'o0' ? 0.5 + (call++ % 2) * 0.1 : 0.2))
  return evaluateWithScorer(rows, flaky, { ...quiet, epochs: 2, storePrompts: true })
}

/** The message a reader throws, or `undefined` when it accepts. */
function thrown(read: () => unknown): string | undefined {
  try {
    read()
    return undefined
  } catch (error) {
    expect(error).toBeInstanceOf(DataError)
    return (error as Error).message
  }
}

describe('one schema per result artifact', () => {
  it('what the evaluator writes is what the schemas accept (types)', () => {
    expectTypeOf<EvalResultJson>().toExtend<z.input<typeof EvalResultJsonSchema>>()
    // An interface meets an index signature only through a mapped type, hence the Pick.
    expectTypeOf<Pick<EvalResult, keyof EvalResult>>().toExtend<z.input<typeof EvalResultSchema>>()
    expectTypeOf<DecisionRecord>().toEqualTypeOf<DecisionRecord & z.output<typeof DecisionRecordSchema>>()
  })

  it('a result and its records round-trip through every reader, optional record fields kept', async () => {
    const result = await fullResult()
    // The CPU kind that scored, from the one home that reads it.
    expect(result.manifest.cpu).toEqual(cpuKind())
    expect(result.records[0]).toHaveProperty('promptHash')
    expect(result.records[0]).toHaveProperty('prompt')
    expect(result.records[0]).toHaveProperty('epochValues')
    const jsonl = recordsToJsonl(result.records)
    expect(parseRecordsJsonl(jsonl, 'r.jsonl')).toEqual(result.records)
    expect(parseComparable(jsonl, 'r.jsonl').records).toEqual(result.records)
    const whole = JSON.parse(JSON.stringify(result)) as unknown
    const comparable = parseComparable(JSON.stringify(whole), 'run.json')
    expect(comparable.records).toEqual(result.records)
    expect(comparable.manifest).toEqual({ fingerprint: result.manifest.fingerprint })
    expect(parseResultJson(JSON.stringify(resultToJson(result)), 'run.json')).toEqual(JSON.parse(JSON.stringify(resultToJson(result))))
  })

  it('a bad record line reads the same in compare and in report: file:line, field', async () => {
    const result = await fullResult()
    const good = JSON.parse(JSON.stringify(result.records[0])) as Record<string, unknown>
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...good, picks: 'A' }, /^r\.jsonl:2, field "picks": not a decision record: must be an array of strings/],
      [{ ...good, gold: 3 }, /^r\.jsonl:2, field "gold": not a decision record: must be a string/],
      [{ ...good, probabilities: {} }, /^r\.jsonl:2, field "probabilities": not a decision record: must be a non-empty object of numbers/],
      [{ ...good, probabilities: { o0: '1' } }, /^r\.jsonl:2, field "probabilities\.o0": not a decision record: must be a number/],
      [{ ...good, epochValues: [1, 'x'] }, /^r\.jsonl:2, field "epochValues\[1\]": not a decision record: must be a number/],
    ]
    for (const [record, expected] of bad) {
      const text = `${JSON.stringify(good)}\n${JSON.stringify(record)}\n`
      const report = thrown(() => parseRecordsJsonl(text, 'r.jsonl'))
      expect(report).toMatch(expected)
      expect(thrown(() => parseComparable(text, 'r.jsonl'))).toBe(report)
    }
  })

  it('a whole result as JSON is checked by the same schema, naming the record and field', async () => {
    const whole = JSON.parse(JSON.stringify(await fullResult())) as { records: Record<string, unknown>[]; balancedAccuracy: unknown }
    whole.records[1] = { ...whole.records[1], letters: [1] }
    expect(thrown(() => parseComparable(JSON.stringify(whole), 'run.json'))).toMatch(/^run\.json, field "records\[1\]\.letters\[0\]": must be a string/)
    whole.records.pop()
    whole.balancedAccuracy = '0.5'
    expect(thrown(() => parseComparable(JSON.stringify(whole), 'run.json'))).toMatch(/^run\.json, field "balancedAccuracy": must be a number/)
    expect(thrown(() => parseComparable(JSON.stringify({ ...whole, records: undefined }), 'run.json'))).toMatch(/has no "records" array/)
  })

  it('a --json-out document: headline and manifest checked, the rest passed through, unlabelledSkipped defaulted', async () => {
    const json = JSON.parse(JSON.stringify(resultToJson(await fullResult()))) as { manifest: Record<string, unknown> } & Record<string, unknown>
    delete json.manifest.unlabelledSkipped
    const parsed = parseResultJson(JSON.stringify(json), 'run.json')
    expect(parsed.manifest.unlabelledSkipped).toBe(0)
    expect(parsed.circularAccuracy).toBe(json.circularAccuracy)
    for (const [path, value, message] of [
      ['n', -1, /field "n": must be a non-negative integer/],
      ['orderConsistency', 'x', /field "orderConsistency": must be a number or null/],
      ['manifest.debias', 3, /field "manifest\.debias": must be a string/],
      ['perCriterion.c', 'x', /field "perCriterion\.c": must be a number/],
    ] as const) {
      const copy = structuredClone(json) as Record<string, Record<string, unknown>>
      const [head, tail] = path.split('.') as [string, string | undefined]
      if (tail === undefined) (copy as Record<string, unknown>)[head] = value
      else copy[head]![tail] = value
      expect(thrown(() => parseResultJson(JSON.stringify(copy), 'run.json'))).toMatch(message)
    }
  })
})
