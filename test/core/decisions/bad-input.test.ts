import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  DataError,
  EvaluationError,
  ScorerError,
  evaluateWithScorer,
  loadDecisions,
  validateDecisions,
  type ScoreFn,
} from '../../../src/core/index.ts'
import { alwaysFirst, decision } from '../../helpers/decisions.ts'

const data = (name: string) => fileURLToPath(new URL(`../../data/${name}`, import.meta.url))
const quiet = { onWarning: () => {} }

describe('broken decision files: a DataError naming file:line and the field', () => {
  it.each([
    ['truncated.jsonl', 2, undefined, /not valid JSON/],
    ['missing-state.jsonl', 3, 'state', /required/],
    ['one-option.jsonl', 1, 'criterion.options', /at least 2 options/],
    ['21-options.jsonl', 1, 'criterion.options', /at most 20 options/],
    ['duplicate-ids.jsonl', 1, 'criterion.options[1].id', /duplicate option id "a"/],
    ['answer-not-option.jsonl', 1, 'answer_id', /"o9" is not one of the option ids \(o0, o1, o2\)/],
    ['wrong-type-state.jsonl', 1, 'state', /string/],
    ['wrong-type-options.jsonl', 1, 'criterion.options', /array/],
    ['wrong-type-answer.jsonl', 1, 'answer_id', /string/],
    ['missing-criterion-key.jsonl', 1, 'criterion.key', /required/],
    ['array-line.jsonl', 1, undefined, /object/],
  ])('%s → line %i, field %s', async (name, line, field, message) => {
    const path = data(`bad/${name}`)
    const error = await loadDecisions(path).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DataError)
    expect(error).toBeInstanceOf(EvaluationError)
    const dataError = error as DataError
    expect(dataError.file).toBe(path)
    expect(dataError.line).toBe(line)
    expect(dataError.field).toBe(field)
    expect(dataError.message).toMatch(message)
    expect(dataError.message.startsWith(`${path}:${line}`)).toBe(true)
  })

  it('a file that does not exist is a DataError naming it', async () => {
    await expect(loadDecisions(data('bad/nope.jsonl'))).rejects.toThrow(/nope\.jsonl.*cannot read decision file: ENOENT/)
  })

  it('a file with no labelled row is read, then refused by evaluation', async () => {
    const rows = await loadDecisions(data('bad/all-unlabelled.jsonl'))
    expect(rows).toHaveLength(2)
    await expect(evaluateWithScorer(rows, alwaysFirst, quiet)).rejects.toThrow(DataError)
  })

  it('in-memory arrays name the element', () => {
    expect(() => validateDecisions([decision(2, 0), { state: 1 }], 'inline')).toThrow(/^inline:2, field "state"/)
  })
})

describe('awkward but valid files: BOM, CRLF, blank lines, nulls', () => {
  it('reads every row and counts the unlabelled one', async () => {
    const rows = await loadDecisions(data('good/bom-crlf-blank.jsonl'))
    expect(rows.map((r) => r.id)).toEqual(['x1', 'x2', 'x3', 'x4'])
    expect(rows[0]!.state).toBe('s')
    const warnings: string[] = []
    const result = await evaluateWithScorer(rows, alwaysFirst, { onWarning: (m) => warnings.push(m) })
    // Nothing is lost: scored + unlabelled = rows read.
    expect(result.n + result.manifest.unlabelledSkipped).toBe(rows.length)
    expect(result.manifest.unlabelledSkipped).toBe(1)
    expect(warnings.join()).toMatch(/skipping 1 unlabelled/)
  })
})

describe('broken scorers: a ScorerError naming the request', () => {
  const rows = [decision(3, 0, { id: 'first' }), decision(3, 1, { id: 'second' })]
  const broken = (mutate: (out: number[][]) => unknown): ScoreFn => (requests) => mutate(alwaysFirst(requests) as number[][]) as number[][]

  it.each<[string, ScoreFn, RegExp]>([
    ['wrong count', broken((out) => out.slice(1)), /returned 5 vectors for 6 requests/],
    ['wrong length', broken((out) => ((out[4] = [1, 0]), out)), /returned 2 values for request 4 \(decision "second", criterion "c", ordering 2 of 3\), which has 3 options/],
    ['negative', broken((out) => ((out[0] = [0.5, -0.1, 0.6]), out)), /-0\.1 at slot B for request 0 \(decision "first"/],
    ['NaN', broken((out) => ((out[2] = [NaN, 0.5, 0.5]), out)), /NaN at slot A for request 2 \(decision "first", criterion "c", ordering 3 of 3\)/],
    ['Infinity', broken((out) => ((out[3] = [0.1, Infinity, 0.1]), out)), /Infinity at slot B for request 3 \(decision "second"/],
    ['all zeros', broken((out) => ((out[1] = [0, 0, 0]), out)), /all zeros for request 1/],
    ['not an array', broken(() => 'nope'), /returned string instead of an array/],
    ['a string value', broken((out) => ((out[0] = ['0.5', 0.2, 0.3] as never), out)), /returned string at slot A/],
    [
      'throws',
      () => {
        throw new Error('model exploded')
      },
      /the scorer threw on request 0 \(decision "first".*request 5 \(decision "second".*: model exploded/,
    ],
    ['rejects', async () => Promise.reject(new Error('timeout upstream')), /threw on .*timeout upstream/],
  ])('%s', async (_name, scorer, message) => {
    const error = await evaluateWithScorer(rows, scorer, { debias: 'cyclic', ...quiet }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ScorerError)
    expect((error as Error).message).toMatch(message)
  })

  it('an EvaluationError thrown by the scorer passes through with its own type', async () => {
    const { ConfigError } = await import('../../../src/core/index.ts')
    const scorer: ScoreFn = () => {
      throw new ConfigError('model.onnx is missing')
    }
    await expect(evaluateWithScorer(rows, scorer, quiet)).rejects.toThrow(ConfigError)
  })

  it('an aborted signal stops between chunks', async () => {
    const controller = new AbortController()
    let calls = 0
    const scorer: ScoreFn = (requests) => {
      if (++calls === 1) controller.abort(new Error('stop'))
      return alwaysFirst(requests)
    }
    const many = Array.from({ length: 50 }, (_, i) => decision(3, i % 3))
    await expect(
      evaluateWithScorer(many, scorer, { debias: 'cyclic', chunkSize: 6, signal: controller.signal, ...quiet }),
    ).rejects.toThrow('stop')
    expect(calls).toBe(1)
  })
})
