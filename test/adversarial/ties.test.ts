/**
 * Adversarial corpus for ties: a positional or flat scorer tried as a hostile user would, on data
 * whose gold is listed first, through every reader of a run (matchers, CLI, records, report,
 * compare, merge, baselines). Every case asserts its verdict:
 *   error   a clear, typed error naming where;
 *   correct the right result, from a closed form or an independent path (a tie is no answer).
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import alwaysFirstModule from '../../examples/scorers/always-first.mjs'
import { compareResults, evaluateWithScorer, recordsToJsonl, resultToJson, type Decision, type EvalResult, type FallibleScoreFn, type ScoreFn } from '../../src/core/index.ts'
import { render } from '../../src/report/index.ts'
import { parseRecordsJsonl, parseResultJson, renderHtmlReport } from '../../src/report/html.ts'
import { githubSummary, thresholdChecks } from '../../src/report/github.ts'
import { checkRecordsMatch } from '../../src/core/compare/records-match.ts'
import { baselineFromResult, compareWithBaseline } from '../../src/suite/baseline/file.ts'
import { toHaveAccuracyAboveChance, toHaveBalancedAccuracy, toHaveOrderConsistency } from '../../src/vitest/assertions/matchers.ts'
import { formatLetters } from '../../src/suite/assertions/format.ts'
import { ROOT, sceptic } from '../helpers/run.ts'
import { cleanup, temp, writeData, writeScorer } from './helpers.ts'

type Verdict = 'error' | 'correct'
interface Case {
  verdict: Verdict
  name: string
  run: () => unknown
}

const alwaysFirst = alwaysFirstModule as ScoreFn
const ALWAYS_FIRST = join(ROOT, 'examples/scorers/always-first.mjs')
const quiet = { onWarning: () => {}, statistics: false } as const
const flat: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map(() => 1))
/** Reads the evidence: the option whose id the state names gets 0.9. */
const reader: ScoreFn = (requests) => requests.map(({ state, criterion }) => criterion.options.map((o) => (state.includes(`[${o.id}]`) ? 0.9 : 0.1)))

/** `n` three-option decisions whose gold (named in the state) is listed first. */
function goldFirst(n: number): Decision[] {
  const ids = ['refund', 'repair', 'replace']
  return Array.from({ length: n }, (_, i) => {
    const gold = ids[i % 3]!
    const order = [gold, ...ids.filter((id) => id !== gold)]
    return { id: `t${i}`, state: `Ticket ${i}: wants [${gold}]`, criterion: { key: 'action', options: order.map((id) => ({ id, text: id })) }, answer_id: gold }
  })
}

/** Call a matcher as `expect(result).matcher(...)` would, returning its pass flag and message. */
function match(matcher: (this: never, received: unknown, ...args: never[]) => unknown, received: unknown, ...args: unknown[]): { pass: boolean; message: string } {
  const out = (matcher as (...a: unknown[]) => { pass: boolean; message: () => string }).call({ isNot: false, utils: {} } as never, received, ...args)
  return { pass: out.pass, message: out.message() }
}

let dir: string
let data: Decision[]
let dataFile: string
let positional: EvalResult
beforeAll(async () => {
  dir = temp('sceptic-adv-ties-')
  data = goldFirst(30)
  dataFile = writeData(dir, data)
  positional = await evaluateWithScorer(data, alwaysFirst, { debias: 'cyclic', ...quiet })
})
afterAll(cleanup)

const matcherCases: Case[] = [
  {
    verdict: 'correct',
    name: 'toHaveBalancedAccuracy({ atLeast: 0.9 }) fails always-first on gold-first data (it passed at 100%)',
    run: () => {
      const { pass, message } = match(toHaveBalancedAccuracy as never, positional, { atLeast: 0.9 })
      expect(pass).toBe(false)
      expect(message).toMatch(/measured 0\.000/)
    },
  },
  {
    verdict: 'correct',
    name: 'toHaveAccuracyAboveChance fails it, with and without alpha',
    run: async () => {
      const withRecords = await evaluateWithScorer(data, alwaysFirst, { debias: 'cyclic', onWarning: () => {} })
      expect(match(toHaveAccuracyAboveChance as never, withRecords).pass).toBe(false)
      expect(match(toHaveAccuracyAboveChance as never, withRecords, { alpha: 0.05 }).pass).toBe(false)
    },
  },
  {
    verdict: 'correct',
    name: 'a flat scorer does not read as letters picked A:100% in a matcher message',
    run: async () => {
      const result = await evaluateWithScorer(data, flat, { debias: 'cyclic', ...quiet })
      expect(formatLetters(result.letterDistribution)).toBe('A:33% B:33% C:33%')
      const { pass, message } = match(toHaveOrderConsistency as never, result, { atLeast: 0.5 })
      expect(pass).toBe(false)
      expect(message).toContain('A:33% B:33% C:33%')
    },
  },
]

const readerCases: Case[] = [
  {
    verdict: 'correct',
    name: 'sceptic evaluate: JSON and records say 0%, prediction null, tied ids; the report prints the tied line',
    run: async () => {
      const json = join(dir, 'first.json')
      const records = join(dir, 'first.records.jsonl')
      const { code, stdout } = await sceptic(['evaluate', dataFile, '--scorer', ALWAYS_FIRST, '--no-cache', '--json-out', json, '--records-out', records])
      expect(code).toBe(0)
      expect(stdout).toMatch(/^accuracy {11}0\.0%/m)
      expect(stdout).toMatch(/^tied {15}30 {3}decisions with no single answer \(counted wrong\); 0 tied picks/m)
      const doc = JSON.parse(await readFile(json, 'utf8'))
      expect(doc).toMatchObject({ accuracy: 0, balancedAccuracy: 0, circularAccuracy: 0, manifest: { tied: { decisions: 30, picks: 0 } } })
      const lines = parseRecordsJsonl(await readFile(records, 'utf8'), records)
      expect(lines).toHaveLength(30)
      lines.forEach((line, i) => {
        expect(line.prediction).toBeNull()
        expect(line.tied).toEqual(data[i]!.criterion.options.map((o) => o.id))
      })
    },
  },
  {
    verdict: 'correct',
    name: 'sceptic report --records reads tied records back and checks them against the run',
    run: async () => {
      const json = join(dir, 'first.json')
      const records = join(dir, 'first.records.jsonl')
      const html = join(dir, 'first.html')
      const { code, stderr } = await sceptic(['report', json, '--records', records, '--html-out', html])
      expect(code, stderr).toBe(0)
      // The records' accuracy (nulls counted wrong) is the run's, else the report refuses them.
      const result = parseResultJson(await readFile(json, 'utf8'), json)
      const lines = parseRecordsJsonl(await readFile(records, 'utf8'), records)
      expect(() => checkRecordsMatch(result, lines, json, records)).not.toThrow()
      // A forged record that turns a tie into the first option is refused: it gives another accuracy.
      const forged = lines.map((r, i) => (i < 10 ? { ...r, prediction: r.gold } : r))
      expect(() => checkRecordsMatch(result, forged, json, records)).toThrow(/another accuracy/)
      expect(await readFile(html, 'utf8')).toContain('0.0%')
    },
  },
  {
    verdict: 'correct',
    name: 'sceptic compare: a reader against always-first wins every decision (no tie is a hit)',
    run: async () => {
      const readerModule = writeScorer(dir, "export default (rs) => rs.map(({ state, criterion }) => criterion.options.map((o) => (state.includes(`[${o.id}]`) ? 0.9 : 0.1)))\n", 'reader.mjs')
      const readerRecords = join(dir, 'reader.records.jsonl')
      expect((await sceptic(['evaluate', dataFile, '--scorer', readerModule, '--no-cache', '--records-out', readerRecords])).code).toBe(0)
      const out = join(dir, 'compare.json')
      const { code, stderr } = await sceptic(['compare', join(dir, 'first.records.jsonl'), readerRecords, '--json-out', out])
      expect(code, stderr).toBe(0)
      const c = JSON.parse(await readFile(out, 'utf8'))
      expect(c.table).toMatchObject({ bothRight: 0, onlyA: 0, onlyB: 30, neither: 0 })
    },
  },
  {
    verdict: 'correct',
    name: 'sceptic merge of shard parts keeps every tie: the merged run equals the unsharded one',
    run: async () => {
      const parts = [1, 2].map((i) => join(dir, `part${i}.records.jsonl`))
      for (const [i, part] of parts.entries())
        expect((await sceptic(['evaluate', dataFile, '--scorer', ALWAYS_FIRST, '--no-cache', '--shard', `${i + 1}/2`, '--records-out', part])).code).toBe(0)
      const merged = join(dir, 'merged.json')
      const mergedRecords = join(dir, 'merged.records.jsonl')
      const { code, stderr } = await sceptic(['merge', ...parts, '--json-out', merged, '--records-out', mergedRecords])
      expect(code, stderr).toBe(0)
      const doc = JSON.parse(await readFile(merged, 'utf8'))
      expect(doc).toMatchObject({ accuracy: 0, balancedAccuracy: 0, manifest: { tied: { decisions: 30, picks: 0 } } })
      expect(await readFile(mergedRecords, 'utf8')).toBe(await readFile(join(dir, 'first.records.jsonl'), 'utf8'))
    },
  },
  {
    verdict: 'correct',
    name: 'compareResults (McNemar) on a flat scorer: every discordant pair favours the reader',
    run: async () => {
      const a = await evaluateWithScorer(data, flat, { debias: 'cyclic', ...quiet })
      const b = await evaluateWithScorer(data, reader, { debias: 'cyclic', ...quiet })
      const c = compareResults(a, b)
      expect(c.table).toMatchObject({ bothRight: 0, onlyA: 0, onlyB: 30 })
      expect(c.mcnemar.pTwoSided).toBeLessThan(1e-6)
    },
  },
  {
    verdict: 'correct',
    name: 'a baseline of the reader gates a flat scorer: tied decisions are neither consistent nor strictly right',
    run: async () => {
      const good = await evaluateWithScorer(data, reader, { debias: 'cyclic', ...quiet })
      const bad = await evaluateWithScorer(data, flat, { debias: 'cyclic', ...quiet, scorerDescription: good.manifest.scorer })
      const current = baselineFromResult('s', bad)
      for (const decision of Object.values(current.decisions)) expect(decision).toMatchObject({ consistent: false, strict: false })
      const outcome = compareWithBaseline(baselineFromResult('s', good), current, { alpha: 0.05, detectableDrop: 0.1 })
      expect(outcome.pass).toBe(false)
    },
  },
  {
    verdict: 'correct',
    name: 'the HTML page and the job summary count a tied run as 0%, and a threshold fails on it',
    run: () => {
      const page = renderHtmlReport([{ result: resultToJson(positional), records: positional.records, label: 'first.json' }])
      for (const metric of ['accuracy', 'balancedAccuracy'])
        expect(page).toMatch(new RegExp(`data-metric="${metric}"><dt>[^<]*</dt><dd><span class="value">0\\.0%</span>`))
      const suite = { suite: 'first', file: 'first.eval.ts', thresholds: { balancedAccuracy: 0.9 }, result: resultToJson(positional) }
      expect(thresholdChecks(suite)).toMatchObject([{ key: 'balancedAccuracy', value: 0, pass: false }])
      expect(githubSummary([suite])).toMatch(/^\| balanced accuracy \| \*\*0\.0%\*\* \| ≥ 90\.0% \| ❌ \|$/m)
    },
  },
]

const arithmeticCases: Case[] = [
  {
    verdict: 'correct',
    name: 'summation order cannot break a tie: rotations of [0.1, 0.2, 0.3] sum per id to 0.6 up to one ulp, and tie',
    run: async () => {
      const scorer: ScoreFn = (requests) => requests.map(() => [0.1, 0.2, 0.3])
      const result = await evaluateWithScorer(data.slice(0, 3), scorer, { debias: 'cyclic', ...quiet })
      for (const record of result.records) expect(record.prediction).toBeNull()
      expect(result.accuracy).toBe(0)
    },
  },
  {
    verdict: 'correct',
    name: 'a custom metric sees prediction null for a tie, and counts it wrong',
    run: async () => {
      const result = await evaluateWithScorer(data, alwaysFirst, {
        debias: 'cyclic',
        ...quiet,
        metrics: { answered: (scores) => scores.filter((s) => s.prediction !== null).length, value: (scores) => scores.reduce((a, s) => a + s.value, 0) },
      })
      expect(result.metrics).toEqual({ answered: 0, value: 0 })
    },
  },
  {
    verdict: 'correct',
    name: 'ECE reads a tie as the tied maximum, never right: always-first on 3 options scores |0 − 1/3|',
    run: () => {
      expect(positional.ece).toBeCloseTo(1 / 3, 12)
    },
  },
  {
    verdict: 'correct',
    name: 'a judge with a pinned Tie option: a tied maximum is not the Tie option, and never primacy',
    run: async () => {
      const pairs: Decision[] = Array.from({ length: 4 }, (_, i) => ({
        id: `p${i}`,
        state: `pair ${i}`,
        criterion: { key: 'judge', options: [{ id: 'x', text: 'X' }, { id: 'y', text: 'Y' }, { id: 'tie', text: 'Tie', pinned: true }] },
        answer_id: 'x',
      }))
      // Both candidates alike, the Tie option lower: a tied maximum between the candidates.
      const judge: ScoreFn = (requests) => requests.map(() => [0.4, 0.4, 0.2])
      const result = await evaluateWithScorer(pairs, judge, { debias: 'cyclic', ...quiet })
      expect(result.pairwise).toMatchObject({ pairs: 4, primacy: 0, recency: 0, positionConsistency: 0, firstShownRate: null })
      expect(result.accuracy).toBe(0)
      expect(result.letterDistribution).toEqual({ A: 0.5, B: 0.5, C: 0 })
    },
  },
  {
    verdict: 'correct',
    name: 'render of a tied run says how many decisions and picks tied',
    run: async () => {
      const result = await evaluateWithScorer(data.slice(0, 4), flat, { debias: 'cyclic', ...quiet })
      expect(render(result, { color: false })).toMatch(/^tied {15}4 {3}decisions with no single answer \(counted wrong\); 12 tied picks \(letter split evenly\)$/m)
    },
  },
  {
    verdict: 'error',
    name: 'a stated pick the vector contradicts is a ScorerError naming the request, exit 4 from the CLI in one line',
    run: async () => {
      const module = writeScorer(dir, 'export default (rs) => rs.map((r) => ({ probabilities: r.criterion.options.map((_, i) => (i === 0 ? 0.9 : 0.05)), pick: 1 }))\n', 'liar.mjs')
      const { code, stderr } = await sceptic(['evaluate', dataFile, '--scorer', module, '--no-cache'])
      expect(code).toBe(4)
      expect(stderr.trim().split('\n')).toHaveLength(1)
      expect(stderr).toMatch(/stated pick B for request 0 \(decision "t0".*not a maximal slot/)
    },
  },
  {
    verdict: 'correct',
    name: 'records of a tied run round-trip through recordsToJsonl and the reader unchanged',
    run: async () => {
      const file = join(dir, 'roundtrip.jsonl')
      await writeFile(file, recordsToJsonl(positional.records))
      expect(parseRecordsJsonl(await readFile(file, 'utf8'), file)).toEqual(JSON.parse(JSON.stringify(positional.records)))
    },
  },
  {
    verdict: 'correct',
    name: 'a scorer that states slot A under every rotation of a flat vector is tied, not credited with A',
    run: async () => {
      const stating: FallibleScoreFn = (requests) => requests.map(({ criterion }) => ({ probabilities: criterion.options.map(() => 1), pick: 0 }))
      const result = await evaluateWithScorer(data, stating, { debias: 'cyclic', ...quiet })
      expect(result.accuracy).toBe(0)
      expect(result.letterDistribution).toEqual({ A: 1, B: 0, C: 0 })
    },
  },
]

const groups = { matcherCases, readerCases, arithmeticCases }
for (const [group, cases] of Object.entries(groups))
  describe(group, () => {
    it.each(cases.map((c) => [c.verdict, c.name, c] as const))('%s: %s', async (_verdict, _name, c) => {
      await c.run()
    })
  })
