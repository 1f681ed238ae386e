/**
 * Adversarial corpus for the core and the data layer: inputs chosen to turn a run
 * green that should fail, to drop a row or a key silently, or to crash. Every case
 * asserts its verdict:
 *   error   a clear, typed error naming where (file:line, field, request);
 *   counted a per-decision failure counted by reason, the run completing;
 *   correct the right result, computed from a closed form or an independent path.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, DataError, ScorerError, compareResults, evaluateWithScorer, loadDecisions, recordsToJsonl, resolveReducer, resultToJson, validateDecisions, type Decision, type EvalResult, type FallibleScoreFn, type ScoreFn } from '../../src/core/index.ts'
import { render, renderComparison } from '../../src/report/index.ts'
import { computeStatistics, majorityBaseline } from '../../src/core/stats.ts'
import { escapeControl } from '../../src/core/support/escape.ts'
import { parseRecordsJsonl, parseResultJson, renderHtmlReport } from '../../src/report/html.ts'
import { githubSummary, thresholdChecks } from '../../src/report/github.ts'
import { checkRecordsMatch } from '../../src/core/compare/records-match.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { toHavePerCriterionBalancedAccuracy } from '../../src/vitest/assertions/matchers.ts'
import { decision } from '../helpers/decisions.ts'
import { sceptic } from '../helpers/run.ts'
import { PROTO_NAMES, protoDecisions, protoReader } from './names.ts'
import { useTempDir } from '../helpers/temp.ts'

type Verdict = 'error' | 'counted' | 'correct'
interface Case {
  verdict: Verdict
  name: string
  run: () => unknown
}

const quiet = { onWarning: () => {} }
const ESC = '\u001b'
const dir = useTempDir('sceptic-adversarial-')
let protoResult: EvalResult
beforeAll(async () => {
  protoResult = await evaluateWithScorer(protoDecisions(), protoReader, { debias: 'cyclic', ...quiet })
})

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection, got a result')
    },
    (error: Error) => error,
  )
}

/** A file under the test's temp folder. */
async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

const line = (d: Decision) => JSON.stringify(d)
const labelled = (id: string, answer = 0) => decision(3, answer, { id })
/** A scorer that puts `vector` on every request. */
const constant = (vector: number[]): ScoreFn => (requests) => requests.map(() => vector)

// ---------------------------------------------------------------------------
// Keys and ids named like Object.prototype members

const protoCases: Case[] = [
  {
    verdict: 'correct',
    name: 'a criterion keyed __proto__ appears in perCriterion, at 0% beside the others at 100%',
    run: () => {
      const per = protoResult.perCriterion
      expect(Object.keys(per).sort()).toEqual([...PROTO_NAMES, 'plain'].sort())
      expect(Object.hasOwn(per, '__proto__')).toBe(true)
      expect(per['__proto__']).toBe(0)
      for (const key of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'plain']) expect(per[key]).toBe(1)
      // ... and in the --json-out document, as a key.
      const json = JSON.parse(JSON.stringify(resultToJson(protoResult)))
      expect(Object.hasOwn(json.perCriterion, '__proto__')).toBe(true)
      expect(json.perCriterion['__proto__']).toBe(0)
    },
  },
  {
    verdict: 'correct',
    name: 'an option id __proto__ keeps its probability in records (and in the JSONL)',
    run: () => {
      for (const record of protoResult.records) {
        expect(Object.keys(record.probabilities).sort()).toEqual([...PROTO_NAMES].sort())
        const sum = Object.values(record.probabilities).reduce((a, b) => a + b, 0)
        expect(sum).toBeCloseTo(1, 12)
      }
      // Decision "plain/__proto__": gold and prediction __proto__ at 0.6 / (0.6 + 4·0.1) = 0.6.
      const plain = protoResult.records.find((r) => r.id === 'plain/__proto__')!
      expect(plain.prediction).toBe('__proto__')
      expect(plain.probabilities['__proto__']).toBeCloseTo(0.6, 12)
      const parsed = parseRecordsJsonl(recordsToJsonl(protoResult.records), 'r.jsonl')
      expect(Object.hasOwn(parsed[0]!.probabilities, '__proto__')).toBe(true)
    },
  },
  {
    verdict: 'correct',
    name: 'the terminal report lists the __proto__ criterion',
    run: () => {
      const text = render(protoResult, { color: false })
      expect(text).toMatch(/^ {2}__proto__ {12}0\.000$/m)
      expect(text).toMatch(/^ {2}constructor {10}1\.000$/m)
    },
  },
  {
    verdict: 'correct',
    name: 'a perCriterion gate fails while the __proto__ criterion sits at 0% (matcher, and after a JSON round trip)',
    run: () => {
      const state = { isNot: false } as never
      const gate = (result: unknown) => toHavePerCriterionBalancedAccuracy.call(state, result, { atLeast: 0.9 }) as { pass: boolean; message: () => string }
      expect(gate(protoResult).pass).toBe(false)
      const outcome = gate(JSON.parse(JSON.stringify(resultToJson(protoResult))))
      expect(outcome.pass).toBe(false)
      expect(outcome.message()).toMatch(/worst is "__proto__" at 0/)
    },
  },
  {
    verdict: 'correct',
    name: 'the GitHub summary marks the perCriterion gate ❌ for the __proto__ criterion',
    run: () => {
      const suite = { suite: 'names', file: 'evals/names.eval.ts', thresholds: { perCriterion: 0.9 }, result: resultToJson(protoResult) }
      expect(thresholdChecks(suite)).toMatchObject([{ key: 'perCriterion', value: 0, pass: false }])
      expect(githubSummary([suite])).toContain('### ❌ names')
    },
  },
  {
    verdict: 'correct',
    name: 'the HTML report shows every named criterion, with records and without (report --no-records)',
    run: () => {
      const json = parseResultJson(JSON.stringify(resultToJson(protoResult)), 'run.json')
      for (const records of [protoResult.records, null]) {
        const html = renderHtmlReport({ result: json, records })
        const block = html.slice(html.indexOf('data-block="criteria"'))
        for (const key of [...PROTO_NAMES, 'plain']) expect(block).toContain(`${key} `)
        expect(block).toContain('__proto__ 0.000')
      }
    },
  },
  {
    verdict: 'correct',
    name: 'the HTML letters chart of a result whose letter keys are __proto__ and constructor shows both, with numbers',
    run: () => {
      const json = JSON.parse(JSON.stringify(resultToJson(protoResult)))
      json.letterDistribution = JSON.parse('{"__proto__": 0.75, "constructor": 0.25}')
      const html = renderHtmlReport({ result: parseResultJson(JSON.stringify(json), 'run.json'), records: null })
      const block = html.slice(html.indexOf('data-block="letters"'), html.indexOf('</figure>', html.indexOf('data-block="letters"')))
      expect(block).toContain('__proto__ 75% (expected 50%)')
      expect(block).toContain('constructor 25% (expected 50%)')
      expect(block).not.toContain('NaN')
    },
  },
  {
    verdict: 'correct',
    name: 'flags named __proto__ and constructor are counted, not lost or turned into text',
    run: async () => {
      const flagging: FallibleScoreFn = (requests) => requests.map(() => ({ probabilities: [0.5, 0.3, 0.2], flags: ['__proto__', 'constructor'] }))
      const result = await evaluateWithScorer([labelled('f1'), labelled('f2')], flagging, quiet)
      expect(Object.keys(result.manifest.flagged).sort()).toEqual(['__proto__', 'constructor'])
      expect(result.manifest.flagged['__proto__']).toBe(2)
      expect(result.manifest.flagged['constructor']).toBe(2)
    },
  },
  {
    verdict: 'correct',
    name: 'failure reasons named like prototype members are counted by reason',
    run: async () => {
      const failing: FallibleScoreFn = (requests) =>
        requests.map(({ state }) => (state === 'x' ? ({ failure: 'constructor', message: 'odd' } as never) : [0.7, 0.2, 0.1]))
      const rows = [{ ...labelled('ok'), state: 'fine' }, { ...labelled('bad'), state: 'x' }]
      const result = await evaluateWithScorer(rows, failing, quiet)
      expect(result.failed).toBe(1)
      expect(result.manifest.failedByReason['constructor']).toBe(1)
      expect(Object.keys(result.manifest.failedByReason)).toEqual(['constructor'])
    },
  },
  {
    verdict: 'correct',
    name: 'a custom metric named __proto__ is reported under metrics',
    run: async () => {
      const metrics = Object.fromEntries([['__proto__', () => 0.25], ['toString', () => 0.5]])
      const result = await evaluateWithScorer([labelled('m1')], constant([0.7, 0.2, 0.1]), { ...quiet, metrics })
      expect(Object.hasOwn(result.metrics, '__proto__')).toBe(true)
      expect(result.metrics).toEqual(Object.assign(Object.create(null), { ['__proto__']: 0.25, toString: 0.5 }))
    },
  },
  {
    verdict: 'correct',
    name: 'the majority baseline answers the __proto__ criterion with its most frequent gold',
    run: () => {
      const base = majorityBaseline(['a', 'a', 'b', 'x'], ['__proto__', '__proto__', '__proto__', 'constructor'])
      expect(Object.hasOwn(base.answers, '__proto__')).toBe(true)
      expect(base.answers['__proto__']).toBe('a')
      expect(base.hits).toEqual([true, true, false, true])
    },
  },
  {
    verdict: 'correct',
    name: 'property: for any keys and ids (prototype names among them), perCriterion has every key and records every option id',
    run: async () => {
      const name = fc.oneof(fc.constantFrom(...PROTO_NAMES, '__defineGetter__', 'isPrototypeOf', 'toLocaleString'), fc.string({ minLength: 1, maxLength: 4 }))
      const row = fc.record({ key: name, ids: fc.uniqueArray(name, { minLength: 2, maxLength: 4 }), gold: fc.nat() })
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 6 }), async (rows) => {
          const decisions = rows.map(({ key, ids, gold }, i) => ({
            id: `r${i}`,
            state: 's',
            criterion: { key, options: ids.map((id) => ({ id, text: id })) },
            answer_id: ids[gold % ids.length]!,
          }))
          const bySlot: ScoreFn = (requests) => requests.map((r) => r.criterion.options.map((_, k) => 1 / (k + 1)))
          const result = await evaluateWithScorer(decisions, bySlot, { statistics: false, ...quiet })
          expect(Object.keys(result.perCriterion).sort()).toEqual([...new Set(rows.map((r) => r.key))].sort())
          for (const value of Object.values(result.perCriterion)) expect(typeof value).toBe('number')
          result.records.forEach((record, i) => expect(Object.keys(record.probabilities).sort()).toEqual([...rows[i]!.ids].sort()))
          expect(JSON.parse(JSON.stringify(resultToJson(result))).perCriterion).toEqual(JSON.parse(JSON.stringify(result.perCriterion)))
        }),
        { numRuns: 100, seed: 5 },
      )
    },
  },
  {
    verdict: 'error',
    name: 'a reducer named constructor or toString is an unknown reducer, not a function found on the prototype',
    run: () => {
      for (const name of ['constructor', 'toString', '__proto__']) expect(() => resolveReducer(name as never)).toThrow(ConfigError)
    },
  },
  {
    verdict: 'correct',
    name: 'compare with group ids keyed by ids named like prototype members resamples those groups',
    run: () => {
      const records = PROTO_NAMES.map((id, i) => ({ id, criterion: 'c', gold: 'a', prediction: i % 2 ? 'a' : 'b', probabilities: { a: 0.5, b: 0.5 }, picks: ['a'], letters: ['A'] }))
      // As the CLI reads them: a plain object from JSON, where the other three ids are not own keys.
      const groups = JSON.parse('{"constructor": "g1", "toString": "g1"}')
      const comparison = compareResults({ records }, { records }, { groups, resamples: 50 })
      // Three ids have no group (each its own unit), two share g1: four units, not five (nor a function as a group).
      expect(comparison.balancedAccuracy.interval.units).toBe(4)
      expect(comparison.balancedAccuracy.interval.unit).toBe('groups')
    },
  },
]

// ---------------------------------------------------------------------------
// Vectors at the edge of the floating-point range, and log-probabilities

/** A one-shot OpenAI-style completions server answering every call with these top log-probs. */
async function logprobServer(top: Record<string, number>[]) {
  let call = 0
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    const logprobs = top[call++ % top.length]!
    res.writeHead(200, { 'content-type': 'application/json' })
    // Raw text: JSON.stringify would turn NaN into null.
    const entries = Object.entries(logprobs).map(([token, lp]) => `${JSON.stringify(token)}: ${Number.isNaN(lp) ? 'NaN' : lp}`)
    res.end(`{"choices": [{"index": 0, "text": " A", "logprobs": {"top_logprobs": [{${entries.join(', ')}}]}}]}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  }
}

const vectorCases: Case[] = [
  {
    verdict: 'correct',
    name: '[1.7e308, 1.7e308, 1.7e308] renormalises to uniform, not NaN',
    run: async () => {
      const result = await evaluateWithScorer([labelled('big', 0)], constant([1.7e308, 1.7e308, 1.7e308]), { debias: 'cyclic', ...quiet })
      for (const p of Object.values(result.records[0]!.probabilities)) expect(p).toBeCloseTo(1 / 3, 15)
      // a tie is no answer (the first maximum in the original order used to be credited)
      expect(result.records[0]!.prediction).toBeNull()
      expect(result.records[0]!.tied).toEqual(['o0', 'o1', 'o2'])
    },
  },
  {
    verdict: 'correct',
    name: '[5e-324, 0, 0] (one subnormal) renormalises to one-hot, under none and calibrated alike',
    run: async () => {
      for (const debias of ['none', 'calibrated'] as const) {
        const result = await evaluateWithScorer([labelled('tiny', 0)], constant([5e-324, 0, 0]), { debias, ...quiet })
        const p = result.records[0]!.probabilities
        if (debias === 'none') expect(p).toEqual(Object.assign(Object.create(null), { o0: 1, o1: 0, o2: 0 }))
        for (const v of Object.values(p)) expect(Number.isFinite(v)).toBe(true)
        // Calibrated divides the constant scorer's own vector out of itself: every option ends tied, no answer.
        expect(result.balancedAccuracy).toBe(debias === 'none' ? 1 : 0)
      }
    },
  },
  {
    verdict: 'correct',
    name: 'property: any vector that passes the contract (extremes, subnormals, zeros) gives finite probabilities summing to 1, in every mode',
    run: async () => {
      const extreme = fc.oneof(fc.constantFrom(0, 5e-324, 1e-310, 1.7e308, Number.MAX_VALUE), fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true }))
      const vector = fc.array(extreme, { minLength: 3, maxLength: 3 }).filter((v) => v.some((x) => x > 0))
      await fc.assert(
        fc.asyncProperty(
          fc.array(vector, { minLength: 1, maxLength: 4 }),
          fc.constantFrom('none', 'cyclic', 'calibrated', 'pride'),
          fc.constantFrom('probability', 'log'),
          async (vectors, debias, average) => {
            let call = 0
            const scorer: ScoreFn = (requests) => requests.map(() => vectors[call++ % vectors.length]!)
            const rows = [labelled('p1', 0), labelled('p2', 1)]
            const result = await evaluateWithScorer(rows, scorer, { debias: debias as never, average: average as never, statistics: false, ...quiet })
            for (const record of result.records) {
              const p = Object.values(record.probabilities)
              for (const v of p) expect(Number.isFinite(v)).toBe(true)
              expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9)
            }
          },
        ),
        { numRuns: 150, seed: 11 },
      )
    },
  },
  {
    verdict: 'correct',
    name: 'HTTP: letter log-probs of -2000 and -2001 read as softmax([0, -1]), not as "no letter"',
    run: async () => {
      const server = await logprobServer([{ ' A': -2000, ' B': -2001 }])
      try {
        const score = openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0 })
        const criterion = { key: 'k', options: [{ id: 'a', text: 'x' }, { id: 'b', text: 'y' }] }
        const [outcome] = await score([{ state: 's', criterion, prompt: 'p' }])
        const expected = 1 / (1 + Math.exp(-1))
        expect(outcome).toEqual([expect.closeTo(expected, 12), expect.closeTo(1 - expected, 12)])
      } finally {
        await server.close()
      }
    },
  },
  {
    verdict: 'counted',
    name: 'HTTP: one absurd response (log-prob NaN, or +1000) is a counted parse_failure; the run completes',
    run: async () => {
      const sane = { ' A': -0.1, ' B': -2.5 }
      const server = await logprobServer([sane, { ' A': Number.NaN, ' B': -1 }, { ' A': 1000, ' B': 999 }])
      try {
        const score = openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0, concurrency: 1 })
        const rows = ['h1', 'h2', 'h3'].map((id) => ({ ...decision(2, 0, { id }) }))
        const result = await evaluateWithScorer(rows, score, { debias: 'none', ...quiet })
        expect(result.n).toBe(1)
        expect(result.failed).toBe(2)
        expect(result.manifest.failedByReason).toEqual(Object.assign(Object.create(null), { parse_failure: 2 }))
        expect(result.failures.map((f) => f.message).join('\n')).toMatch(/not a log-probability/)
      } finally {
        await server.close()
      }
    },
  },
  {
    verdict: 'counted',
    name: 'HTTP: a null log-prob (Number(null) is 0, probability 1) is a counted parse_failure, not a certain answer',
    run: async () => {
      const server = await rawServer('{"choices": [{"index": 0, "text": " B", "logprobs": {"top_logprobs": [{" A": -0.1, " B": null}]}}]}')
      try {
        const score = openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0 })
        const criterion = { key: 'k', options: [{ id: 'a', text: 'x' }, { id: 'b', text: 'y' }] }
        const [outcome] = await score([{ state: 's', criterion, prompt: 'p' }])
        expect(outcome).toMatchObject({ failure: 'parse_failure', message: expect.stringMatching(/log-probability NaN for token " B"/) })
      } finally {
        await server.close()
      }
    },
  },
  {
    verdict: 'counted',
    name: 'HTTP: every letter at log-prob -Infinity (as -1e400 in the body) is a counted parse_failure; the run completes',
    run: async () => {
      const sane = '{"choices": [{"index": 0, "text": " A", "logprobs": {"top_logprobs": [{" A": -0.1, " B": -3}]}}]}'
      const server = await rawServer(sane, '{"choices": [{"index": 0, "text": " A", "logprobs": {"top_logprobs": [{" A": -1e400, " B": -1e400}]}}]}')
      try {
        const score = openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0, concurrency: 1 })
        const result = await evaluateWithScorer([decision(2, 0, { id: 'inf1' }), decision(2, 0, { id: 'inf2' })], score, { ...quiet, debias: 'none' })
        expect(result.n).toBe(1)
        expect(result.failures).toEqual([expect.objectContaining({ id: 'inf2', reason: 'parse_failure' })])
      } finally {
        await server.close()
      }
    },
  },
]

/** A server that answers call k with `bodies[k % bodies.length]` as is (200, JSON). */
async function rawServer(...bodies: string[]) {
  let call = 0
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(bodies[call++ % bodies.length])
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  }
}

// ---------------------------------------------------------------------------
// Boundaries: decisions in code, options, the manifest, scorers that write

const boundaryCases: Case[] = [
  {
    verdict: 'error',
    name: 'decisions passed in code get the loader schema: answer_id not among the options',
    run: async () => {
      const bad = { ...labelled('x'), answer_id: 'nope' }
      const error = await rejection(evaluateWithScorer([labelled('ok'), bad], constant([1, 1, 1]), quiet))
      expect(error).toBeInstanceOf(DataError)
      expect(error.message).toMatch(/^<decisions>:2, field "answer_id": "nope" is not one of the option ids/)
    },
  },
  {
    verdict: 'error',
    name: 'decisions passed in code: a state that is not a string, duplicate option ids',
    run: async () => {
      await expect(evaluateWithScorer([{ ...labelled('s'), state: 42 } as never], constant([1, 1, 1]), quiet)).rejects.toThrow(
        /^<decisions>:1, field "state"/,
      )
      const twins = { ...labelled('t'), criterion: { key: 'k', options: [{ id: 'o0', text: 'a' }, { id: 'o0', text: 'b' }] } }
      await expect(evaluateWithScorer([twins], constant([1, 1]), quiet)).rejects.toThrow(/duplicate option id "o0"/)
    },
  },
  {
    verdict: 'error',
    name: 'chunkSize 0 under calibrated is a ConfigError, not an endless loop',
    run: async () => {
      // Bounded even where the rule is missing: the scorer gives up after 100 calls (an empty chunk repeats forever).
      let calls = 0
      const bounded: ScoreFn = (requests) => {
        if (++calls > 100) throw new Error('called 100 times: the evaluation loops')
        return requests.map(() => [1, 1, 1])
      }
      const error = await rejection(evaluateWithScorer([labelled('c')], bounded, { debias: 'calibrated', chunkSize: 0, ...quiet }))
      expect(error).toBeInstanceOf(ConfigError)
      expect(error.message).toMatch(/chunkSize must be an integer ≥ 1.*got 0/)
    },
  },
  {
    verdict: 'error',
    name: 'chunkSize 1.5, -1, NaN and Infinity are refused before any scoring',
    run: async () => {
      let calls = 0
      const counting: ScoreFn = (requests) => (calls++, requests.map(() => [1, 1, 1]))
      for (const chunkSize of [1.5, -1, Number.NaN, Infinity])
        await expect(evaluateWithScorer([labelled('c')], counting, { chunkSize, ...quiet })).rejects.toThrow(ConfigError)
      expect(calls).toBe(0)
    },
  },
  {
    verdict: 'error',
    name: 'the manifest option cannot override fingerprint, decisions or debias',
    run: async () => {
      for (const key of ['fingerprint', 'decisions', 'debias', 'recordsFingerprint'])
        await expect(evaluateWithScorer([labelled('m')], constant([1, 1, 1]), { manifest: { [key]: 'forged' }, ...quiet })).rejects.toThrow(
          new RegExp(`"${key}" is computed by the evaluation`),
        )
    },
  },
  {
    verdict: 'correct',
    name: 'the manifest option adds entries beside the computed ones (a __proto__ entry included)',
    run: async () => {
      const extras = JSON.parse('{"batchSize": 8, "__proto__": "x"}')
      const result = await evaluateWithScorer([labelled('m')], constant([1, 1, 1]), { manifest: extras, ...quiet })
      expect(result.manifest.batchSize).toBe(8)
      expect(Object.hasOwn(result.manifest, '__proto__')).toBe(true)
      expect(result.manifest.decisions).toBe(1)
    },
  },
  {
    verdict: 'error',
    name: 'a scorer that rewrites option.id in place gets a TypeError (a ScorerError naming the request)',
    run: async () => {
      const vandal: ScoreFn = (requests) => {
        ;(requests[0]!.criterion.options[0] as { id: string }).id = 'o1'
        return requests.map(() => [1, 0, 0])
      }
      const error = await rejection(evaluateWithScorer([labelled('v')], vandal, quiet))
      expect(error).toBeInstanceOf(ScorerError)
      expect(error.message).toMatch(/the scorer threw on request 0 .*read only property 'id'/)
    },
  },
  {
    verdict: 'correct',
    name: 'a scorer that tries to rewrite requests (and swallows the TypeError) changes neither accuracy nor fingerprint',
    run: async () => {
      const rows = [labelled('w1', 0), labelled('w2', 1), labelled('w3', 2)]
      const honest: ScoreFn = (requests) => requests.map(({ criterion, state }) => criterion.options.map((o) => (state.includes(o.id) ? 1 : 0.1)))
      const data = rows.map((row) => ({ ...row, state: `pick ${row.answer_id}` }))
      const clean = await evaluateWithScorer(data, honest, { debias: 'cyclic', ...quiet })
      const sneaky: ScoreFn = (requests) => {
        for (const request of requests) {
          for (const attempt of [
            () => ((request.criterion.options[0] as { id: string }).id = 'o2'),
            () => (request.criterion.options as unknown as unknown[]).reverse(),
            () => ((request.criterion as { key: string }).key = 'other'),
            () => ((request as { state: string }).state = 'pick o0'),
          ])
            expect(attempt).toThrow(TypeError)
        }
        return honest(requests)
      }
      const after = await evaluateWithScorer(data, sneaky, { debias: 'cyclic', ...quiet })
      expect(after.accuracy).toBe(clean.accuracy)
      expect(after.accuracy).toBe(1)
      expect(after.manifest.fingerprint).toBe(clean.manifest.fingerprint)
      expect(after.records.map((r) => r.probabilities)).toEqual(clean.records.map((r) => r.probabilities))
    },
  },

  {
    verdict: 'error',
    name: 'records checked against a result without recordsFingerprint (an older run): same ids, other predictions are refused',
    run: () => {
      const json = parseResultJson(JSON.stringify(resultToJson(protoResult)), 'old.json')
      delete (json.manifest as Record<string, unknown>).recordsFingerprint
      expect(() => checkRecordsMatch(json, protoResult.records, 'old.json', 'r.jsonl')).not.toThrow()
      // Same ids, criteria and gold; the __proto__ criterion's predictions made right.
      const edited = protoResult.records.map((r) => (r.criterion === '__proto__' ? { ...r, prediction: r.gold } : r))
      expect(() => checkRecordsMatch(json, edited, 'old.json', 'r.jsonl')).toThrow(/^r\.jsonl: gives another accuracy, so it is not from the same run as old\.json$/)
      const renamed = protoResult.records.map((r, i) => (i === 0 ? { ...r, id: 'renamed' } : r))
      expect(() => checkRecordsMatch(parseResultJson(JSON.stringify(resultToJson(protoResult)), 'new.json'), renamed, 'new.json', 'r.jsonl')).toThrow(/holds other decisions/)
    },
  },
]

// ---------------------------------------------------------------------------
// Data files: duplicate ids, invalid UTF-8, streaming

const dataCases: Case[] = [
  {
    verdict: 'error',
    name: 'duplicate decision ids in a file: a DataError naming both lines',
    run: async () => {
      const path = await file('dup.jsonl', [line(labelled('a')), '', line(labelled('b')), line(labelled('a'))].join('\n'))
      const error = await rejection(loadDecisions(path))
      expect(error).toBeInstanceOf(DataError)
      expect(error.message).toBe(
        `${path}:4, field "id": duplicate decision id "a" (first on line 1); ids must be unique, since baselines and compare pair decisions by id`,
      )
    },
  },
  {
    verdict: 'error',
    name: 'duplicate decision ids in an array: the same rule, naming both elements',
    run: () => {
      expect(() => validateDecisions([labelled('x'), labelled('y'), labelled('x')], 'inline')).toThrow(
        /^inline:3, field "id": duplicate decision id "x" \(first on line 1\)/,
      )
    },
  },
  {
    verdict: 'error',
    name: 'invalid UTF-8 is a DataError naming the line (not a silent U+FFFD)',
    run: async () => {
      const bad = Buffer.concat([Buffer.from(line(labelled('u1')) + '\n'), Buffer.from('{"id": "u2", "state": "caf'), Buffer.from([0xe9]), Buffer.from('"}\n')])
      const path = await file('latin1.jsonl', bad)
      const error = await rejection(loadDecisions(path))
      expect(error).toBeInstanceOf(DataError)
      expect(error.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: is not valid UTF-8 \\(byte 27 of the line\\)`))
    },
  },
  {
    verdict: 'correct',
    name: 'the streaming path (forced with a lowered threshold, 7-byte chunks) reads what the buffered path reads: BOM, CRLF, blank lines, multi-byte text',
    run: async () => {
      const rows = [labelled('s1'), { ...labelled('s2'), state: 'Grüße, 東京 🚀' }, labelled('s3', 2)]
      const text = '\uFEFF' + rows.map(line).join('\r\n') + '\r\n\r\n'
      const path = await file('stream.jsonl', text)
      const buffered = await loadDecisions(path)
      const streamed = await loadDecisions(path, { streamAbove: 0, chunkBytes: 7 })
      expect(streamed).toEqual(buffered)
      expect(streamed.map((d) => d.state)).toEqual(rows.map((d) => d.state))
    },
  },
  {
    verdict: 'error',
    name: 'the streaming path names the right line for invalid UTF-8 split across chunks, and for bad JSON',
    run: async () => {
      const head = [line(labelled('t1')), line(labelled('t2'))].join('\n') + '\n'
      const path = await file('stream-bad.jsonl', Buffer.concat([Buffer.from(head + '{"id": "t3", "state": "'), Buffer.from([0xf0, 0x9f, 0x9a]), Buffer.from('"}\n')]))
      await expect(loadDecisions(path, { streamAbove: 0, chunkBytes: 5 })).rejects.toThrow(/:3: is not valid UTF-8/)
      const json = await file('stream-json.jsonl', head + '{"id": \n')
      await expect(loadDecisions(json, { streamAbove: 0, chunkBytes: 3 })).rejects.toThrow(/:3: not valid JSON/)
    },
  },
]

// ---------------------------------------------------------------------------
// Control characters in user strings

const escapeCases: Case[] = [
  {
    verdict: 'correct',
    name: 'ESC, CSI, OSC-8, CR, LF and C1 in a criterion key are escaped in the terminal report',
    run: async () => {
      const key = `red${ESC}[31m\u009b2J${ESC}]8;;https://evil.example${ESC}\\link\rfake\nline`
      const row = { ...labelled('e1'), criterion: { key, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] }, answer_id: 'a' }
      const result = await evaluateWithScorer([row], constant([0.9, 0.1]), quiet)
      const text = render(result, { color: false })
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
      expect(text).toContain('red\\x1b[31m\\x9b2J\\x1b]8;;https://evil.example\\x1b\\link\\x0dfake\\x0aline')
    },
  },
  {
    verdict: 'error',
    name: 'control characters quoted in an error message are escaped (answer_id not among the options)',
    run: async () => {
      const row = { ...labelled('e2'), answer_id: `o9${ESC}[2K${ESC}[1A✓ all green` }
      const error = await rejection(evaluateWithScorer([row], constant([1, 1, 1]), quiet))
      expect(error).toBeInstanceOf(DataError)
      expect(error.message).not.toContain(ESC)
      expect(error.message).toContain('"o9\\x1b[2K\\x1b[1A✓ all green" is not one of the option ids')
    },
  },
  {
    verdict: 'correct',
    name: 'comparison labels (file names) with control characters are escaped',
    run: () => {
      const records = [{ id: 'a', criterion: 'c', gold: 'x', prediction: 'x', probabilities: { x: 1 }, picks: ['x'], letters: ['A'] }]
      const comparison = compareResults({ records }, { records }, { labels: [`a${ESC}[8m.json`, 'b\u0085.json'], resamples: 10 })
      const text = renderComparison(comparison, { color: false })
      expect(text).not.toMatch(/[\u001b\u0085]/)
      expect(text).toContain('a\\x1b[8m.json  vs  b\\x85.json')
    },
  },
  {
    verdict: 'correct',
    name: 'escapeControl leaves ordinary text alone and escapes bidi overrides',
    run: () => {
      expect(escapeControl('Grüße 東京 — "quoted" \\ path')).toBe('Grüße 東京 — "quoted" \\ path')
      expect(escapeControl('abc\u202edef\u2066')).toBe('abc\\u202edef\\u2066')
      expect(escapeControl('\u0000\u007f')).toBe('\\x00\\x7f')
    },
  },
]

// ---------------------------------------------------------------------------
// Honest wording at small n

/** n = 12 (two gold classes of 6), every decision wrong, cyclic: the case that printed 0.0% [0.0, 0.0]. */
async function allWrong12(): Promise<EvalResult> {
  const rows = Array.from({ length: 12 }, (_, i) => decision(2, i % 2, { id: `w${i}` }))
  // Puts its mass on whichever option is not the gold one, by id, under every ordering.
  const contrary: ScoreFn = (requests) =>
    requests.map(({ criterion, state }) => criterion.options.map((o) => (state.endsWith(o.id) ? 0.1 : 0.9)))
  return evaluateWithScorer(
    rows.map((row) => ({ ...row, state: `gold ${row.answer_id}` })),
    contrary,
    { debias: 'cyclic', ...quiet },
  )
}

const wordingCases: Case[] = [
  {
    verdict: 'correct',
    name: 'balanced accuracy 0% at n = 12 gets a real interval, not a collapsed [0.0, 0.0]',
    run: async () => {
      const result = await allWrong12()
      const interval = result.statistics!.intervals.balancedAccuracy
      expect(result.balancedAccuracy).toBe(0)
      // MOVER-Wilson, the method of every run: each class 0 of 6 has Wilson upper u = z²/(6 + z²); √(2u²)/2 = u/√2.
      expect(interval.method).toBe('mover-wilson')
      expect(interval.lower).toBe(0)
      const z2 = 1.959963984540054 ** 2
      expect(interval.upper).toBeCloseTo(z2 / (6 + z2) / Math.SQRT2, 12)
      expect(render(result, { color: false })).toMatch(/^balanced accuracy  0\.0%  \[0\.0, 27\.6\]   not better than chance$/m)
    },
  },
  {
    verdict: 'correct',
    name: 'order consistency 100% over 12 decisions gets Wilson [12/(12 + z²), 1]',
    run: async () => {
      const result = await allWrong12()
      const interval = result.statistics!.intervals.orderConsistency!
      expect(result.orderConsistency).toBe(1)
      expect(interval.method).toBe('wilson')
      expect(interval.lower).toBeCloseTo(12 / (12 + 1.959963984540054 ** 2), 12)
      expect(interval.upper).toBe(1)
    },
  },
  {
    verdict: 'correct',
    name: 'RStd 0 when every recall is 0 does not say "no letter favoured"',
    run: async () => {
      const result = await allWrong12()
      expect(result.statistics!.rstd).toBe(0)
      expect(result.statistics!.rstdReading).toBe('all-wrong')
      const text = render(result, { color: false })
      expect(text).toMatch(/^rstd {15}0\.0   every recall is 0/m)
      expect(text).not.toMatch(/no letter favoured/)
    },
  },
  {
    verdict: 'correct',
    name: 'RStd over a single gold letter says it cannot measure a spread',
    run: () => {
      const records = [0, 1, 2].map((i) => ({ id: `r${i}`, criterion: 'c', gold: 'a', prediction: i ? 'a' : 'b', probabilities: { a: 0.5, b: 0.5 }, picks: ['a'], letters: ['A'] }))
      const h = computeStatistics(records, null, { goldLetters: ['A', 'A', 'A'], resamples: 20 })
      expect(h.rstd).toBe(0)
      expect(h.rstdReading).toBe('one-letter')
    },
  },
  {
    verdict: 'correct',
    name: 'manifest.decisions counts the labelled decisions evaluated: n + failed (unlabelled apart)',
    run: async () => {
      const rows = [labelled('d1'), { ...labelled('d2'), state: 'fail' }, decision(3, null, { id: 'd3' })]
      const scorer: FallibleScoreFn = (requests) => requests.map(({ state }) => (state === 'fail' ? { failure: 'timeout', message: 't' } : [0.6, 0.3, 0.1]))
      const result = await evaluateWithScorer(rows, scorer, quiet)
      expect(result.n).toBe(1)
      expect(result.failed).toBe(1)
      expect(result.manifest.decisions).toBe(result.n + result.failed)
      expect(result.n + result.failed + result.manifest.unlabelledSkipped).toBe(rows.length)
    },
  },
]

// ---------------------------------------------------------------------------
// The built CLI, every command, on the names data (npm test builds dist first)

const READER = fileURLToPath(new URL('./data/proto-reader.mjs', import.meta.url))
/** The names data as a file, evaluated once to --json-out and --records-out. */
async function protoRun(): Promise<{ data: string; json: string; records: string }> {
  const data = await file('names.jsonl', protoDecisions().map(line).join('\n') + '\n')
  const [json, records] = [join(dir, 'names.json'), join(dir, 'names.records.jsonl')]
  const { code, stderr } = await sceptic(['evaluate', data, '--scorer', READER, '--debias', 'cyclic', '--json-out', json, '--records-out', records])
  expect(code, stderr).toBe(0)
  return { data, json, records }
}
let cliRun: Promise<{ data: string; json: string; records: string }> | undefined
const named = () => (cliRun ??= protoRun())

const cliCases: Case[] = [
  {
    verdict: 'correct',
    name: 'evaluate: the __proto__ criterion in the report and the JSON, every option id in the records',
    run: async () => {
      const { json, records } = await named()
      const result = JSON.parse(await readFile(json, 'utf8'))
      expect(result.perCriterion['__proto__']).toBe(0)
      expect(Object.keys(result.perCriterion)).toHaveLength(6)
      const lines = (await readFile(records, 'utf8')).trim().split('\n').map((l) => JSON.parse(l))
      for (const record of lines) expect(Object.keys(record.probabilities).sort()).toEqual([...PROTO_NAMES].sort())
    },
  },
  {
    verdict: 'correct',
    name: 'compare: the records against themselves, with group ids named like prototype members',
    run: async () => {
      const { data, records } = await named()
      const out = join(dir, 'names-compare.json')
      const { code, stdout, stderr } = await sceptic(['compare', records, records, '--data', data, '--resamples', '50', '--json-out', out])
      expect(code, stderr).toBe(0)
      expect(stdout).toMatch(/^decisions {10}30 paired/m)
      // Five groups (the gold ids), resampled as groups.
      expect(JSON.parse(await readFile(out, 'utf8')).balancedAccuracy.interval).toMatchObject({ unit: 'groups', units: 5 })
    },
  },
  {
    verdict: 'correct',
    name: 'split: every line lands on exactly one side, groups named like prototype members kept whole',
    run: async () => {
      const { data } = await named()
      const [train, evalSide] = [join(dir, 'names-train.jsonl'), join(dir, 'names-eval.jsonl')]
      const { code, stderr } = await sceptic(['split', data, '--eval-fraction', '0.4', '--train-out', train, '--eval-out', evalSide])
      expect(code, stderr).toBe(0)
      const read = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n')
      const [a, b] = [await read(train), await read(evalSide)]
      expect([...a, ...b].sort()).toEqual((await readFile(data, 'utf8')).trim().split('\n').sort())
      const groupsOf = (lines: string[]) => new Set(lines.map((l) => JSON.parse(l).group_id))
      for (const group of groupsOf(a)) expect(groupsOf(b).has(group)).toBe(false)
    },
  },
  {
    verdict: 'correct',
    name: 'report: with records and with --no-records, every named criterion on the page',
    run: async () => {
      const { json } = await named()
      for (const flag of [[], ['--no-records']]) {
        const out = join(dir, `names${flag.length}.html`)
        const { code, stderr } = await sceptic(['report', json, '-o', out, ...flag])
        expect(code, stderr).toBe(0)
        const html = await readFile(out, 'utf8')
        expect(html).toContain('__proto__ 0.000')
        expect(html).toContain('hasOwnProperty 1.000')
      }
    },
  },
  {
    verdict: 'error',
    name: 'report --records from another run with the same count is refused (exit 3), not drawn',
    run: async () => {
      const { json, records } = await named()
      const text = await readFile(records, 'utf8')
      // Same 30 records, ids renamed: the count matches, the decisions do not.
      const other = await file('other.records.jsonl', text.replace(/"id":"plain\//g, '"id":"other/'))
      const { code, stderr } = await sceptic(['report', json, '-o', join(dir, 'x.html'), '--records', other])
      expect(code).toBe(3)
      expect(stderr).toMatch(/^sceptic: DataError: .*other\.records\.jsonl: holds other decisions .* so it is not from the same run as/)
      expect(stderr.trim().split('\n')).toHaveLength(1)
    },
  },
  {
    verdict: 'error',
    name: 'a command named constructor is an unknown command (exit 2), not a crash',
    run: async () => {
      for (const name of ['constructor', '__proto__', 'toString']) {
        const { code, stderr } = await sceptic([name])
        expect(code).toBe(2)
        expect(stderr).toMatch(/^sceptic: UsageError: unknown command/)
      }
    },
  },
  {
    verdict: 'error',
    name: 'evaluate: duplicate ids exit 3 naming both lines; ESC in the data is escaped on stderr',
    run: async () => {
      const dup = await file('cli-dup.jsonl', [line(labelled('same')), line(labelled('same'))].join('\n'))
      const first = await sceptic(['evaluate', dup, '--scorer', READER])
      expect(first.code).toBe(3)
      expect(first.stderr).toContain(`${dup}:2, field "id": duplicate decision id "same" (first on line 1)`)
      const esc = await file('cli-esc.jsonl', line({ ...labelled('e'), answer_id: `x${ESC}]8;;http://x${ESC}\\` }))
      const second = await sceptic(['evaluate', esc, '--scorer', READER])
      expect(second.code).toBe(3)
      expect(second.stderr).not.toContain(ESC)
      expect(second.stderr).toContain('"x\\x1b]8;;http://x\\x1b\\" is not one of the option ids')
    },
  },
  {
    verdict: 'error',
    name: 'split: invalid UTF-8 exits 3 naming the line, and writes nothing',
    run: async () => {
      const bad = await file('cli-latin1.jsonl', Buffer.concat([Buffer.from(line(labelled('l1')) + '\n{"id": "l2", "state": "'), Buffer.from([0xff]), Buffer.from('"}\n')]))
      const train = join(dir, 'never-train.jsonl')
      const { code, stderr } = await sceptic(['split', bad, '--eval-fraction', '0.5', '--train-out', train, '--eval-out', join(dir, 'never-eval.jsonl')])
      expect(code).toBe(3)
      expect(stderr).toContain(`${bad}:2: is not valid UTF-8`)
      await expect(readFile(train)).rejects.toThrow(/ENOENT/)
    },
  },
]

const groups = { protoCases, vectorCases, boundaryCases, dataCases, escapeCases, wordingCases, cliCases }
for (const [group, cases] of Object.entries(groups))
  describe(group, () => {
    it.each(cases.map((c) => [c.verdict, c.name, c] as const))('%s: %s', async (_verdict, _name, c) => {
      await c.run()
    })
  })
