// `sceptic report` and `sceptic merge` read run JSON, records and part files defensively: a field
// of the wrong type (a string for a number, an array for an object, a number for a string, nested
// wrong types, a huge share, a missing manifest) is one DataError naming the file and the field —
// never a TypeError, a stack trace or a page drawn from garbage with exit 0. Older shapes
// (intervals as [lower, upper], verdicts as strings, absent optional fields) stay readable.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commands } from '../../../src/cli/commands.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { scoreFailure } from '../../../src/core/scorer/contract.ts'
import { DataError } from '../../../src/core/support/errors.ts'
import { resultToJson } from '../../../src/core/result/result.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { useTempDirs } from '../../helpers/temp.ts'

const temp = useTempDirs('sceptic-run-json-')
type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type Path = (string | number)[]

/** Every path of `value` (objects and arrays too), root excluded. */
function paths(value: Json, at: Path = [], out: Path[] = []): Path[] {
  if (at.length > 0) out.push(at)
  if (value !== null && typeof value === 'object') for (const [key, child] of Object.entries(value)) paths(child, [...at, Array.isArray(value) ? Number(key) : key], out)
  return out
}
const get = (root: Json, path: Path): Json => path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, root)
function set(root: Json, path: Path, value: Json | undefined): Json {
  const copy = structuredClone(root)
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, Json>
  if (value === undefined) delete parent[path.at(-1)!]
  else parent[path.at(-1)!] = value
  return copy
}
const kind = (value: Json): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value)

/** Older shapes a reader keeps reading: a verdict as its message, an interval as [lower, upper], the majority baseline as a number. */
function olderShape(path: Path, value: Json): boolean {
  const at = path.join('.')
  if (/^statistics\.verdicts\.\w+$/.test(at)) return typeof value === 'string'
  if (/^statistics\.(intervals\.\w+|majorityBaseline\.interval)$/.test(at)) return Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'number')
  if (at === 'statistics.majorityBaseline') return typeof value === 'number'
  return false
}

/** Values of another JSON type than the one at `path`: the wrong-type mutations. */
function wrongTypes(root: Json, path: Path): Json[] {
  const value = get(root, path)
  if (value === null) return [] // a nullable field: its other type is not known here
  const all: Json[] = ['x', 'NaN', '1e999', 7, -1, 1e308, true, [], [1, 'x'], {}, { nested: { wrong: 'x' } }]
  return all.filter((v) => kind(v) !== kind(value) && !(kind(value) === 'object' && kind(v) === 'object') && !olderShape(path, v))
}

/** The DataError `run` rejects with (anything else fails the test). */
async function dataError(run: () => Promise<number>): Promise<DataError> {
  let outcome: unknown
  try {
    outcome = `exit ${await run()}`
  } catch (error) {
    outcome = error
  }
  expect(outcome, String((outcome as Error)?.stack ?? outcome)).toBeInstanceOf(DataError)
  return outcome as DataError
}

// `report` and `merge` print to stdout; keep the test output readable.
let restore: () => void
beforeAll(() => {
  const write = process.stdout.write.bind(process.stdout)
  const err = process.stderr.write.bind(process.stderr)
  process.stdout.write = (() => true) as never
  process.stderr.write = (() => true) as never
  restore = () => ((process.stdout.write = write), (process.stderr.write = err))
})
afterAll(() => restore())

const OPTIONS = ['a', 'b', 'c'].map((id) => ({ id, text: `Option ${id}` }))
const DECISIONS: Decision[] = Array.from({ length: 24 }, (_, i) => ({ id: `d${i}`, state: `s${i}`, criterion: { key: i % 2 ? 'even' : 'odd', options: OPTIONS }, answer_id: OPTIONS[i % 3]!.id, group_id: `g${i % 7}` }))

/** A valid run JSON with every optional part a report shows: statistics, failures, ties, stopEarly. */
async function validRun(): Promise<Json> {
  const result = await evaluateWithScorer(
    DECISIONS,
    (requests) => requests.map((r, i) => (r.state === 's5' ? scoreFailure('http_error', 'HTTP 503') : r.state === 's7' ? [1, 1, 1] : r.criterion.options.map((o, k) => (k === i % 3 ? 0.6 : 0.2)))),
    { debias: 'cyclic', onWarning: () => {} },
  )
  const json = JSON.parse(JSON.stringify(resultToJson(result))) as Record<string, Json>
  json.stopEarly = { alpha: 0.05, scored: 23, total: 24, stopped: false, verdicts: { accuracy: 'undecided' }, bounds: { accuracy: { lower: 0.1, upper: 0.9 } } }
  return json
}

const NAMED: [Path, Json | undefined, RegExp][] = [
  [['manifest'], undefined, /field "manifest"/],
  [['manifest'], [], /field "manifest"/],
  [['accuracy'], null, /field "accuracy"/],
  [['accuracy'], 1e308, /field "accuracy": must be a share/],
  [['balancedAccuracy'], -0.5, /field "balancedAccuracy": must be a share/],
  [['n'], 1e308, /field "n"/],
  [['n'], 'NaN', /field "n"/],
  [['failed'], -3, /field "failed"/],
  [['statistics', 'eceNote'], null, /field "statistics\.eceNote"/],
  [['statistics', 'eceNote', 'floorMean'], 'NaN', /field "statistics\.eceNote\.floorMean"/],
  [['statistics', 'rstdReading'], 'maybe', /field "statistics\.rstdReading"/],
  [['statistics', 'intervals', 'accuracy'], { lower: 'x', upper: 1 }, /field "statistics\.intervals\.accuracy"/],
  [['manifest', 'tied'], null, /field "manifest\.tied"/],
  [['manifest', 'tied', 'picks'], '"><img src=x onerror=alert(1)>', /field "manifest\.tied\.picks"/],
  [['stopEarly', 'verdicts', 'accuracy'], 'maybe', /field "stopEarly\.verdicts\.accuracy"/],
  [['failures', 0, 'message'], 42, /field "failures\[0\]\.message"/],
]

describe('sceptic report: a run JSON field of the wrong type is one DataError naming the file and the field', () => {
  let valid: Json
  let dir: string
  beforeAll(async () => {
    valid = await validRun()
    dir = temp()
  })

  const report = (json: Json) => {
    const file = join(dir, 'run.json')
    writeFileSync(file, JSON.stringify(json))
    return () => commands.report!.run([file, '--no-records', '--html-out', join(dir, 'out.html')])
  }

  it('the valid run, and older shapes of it, are read (exit 0)', async () => {
    expect(await report(valid)()).toBe(0)
    const older = structuredClone(valid) as Record<string, any>
    older.statistics.intervals.accuracy = [older.statistics.intervals.accuracy.lower, older.statistics.intervals.accuracy.upper]
    older.statistics.verdicts.accuracy = 'not better than chance'
    older.statistics.majorityBaseline = 0.4
    for (const key of ['stopEarly', 'failures', 'unscored', 'metrics', 'score', 'circularAccuracy', 'slotBias', 'pairwise']) delete older[key]
    for (const key of ['tied', 'failedByReason', 'flagged', 'versions', 'cache', 'started', 'seconds']) delete older.manifest[key]
    expect(await report(older)()).toBe(0)
    const noStatistics = structuredClone(valid) as Record<string, any>
    delete noStatistics.statistics
    expect(await report(noStatistics)()).toBe(0)
  })

  it('property: any field set to a value of another type is refused, naming the file and that field (or the object holding it)', async () => {
    const all = paths(valid).filter((path) => wrongTypes(valid, path).length > 0)
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: all.length - 1 }).chain((i) => fc.tuple(fc.constant(all[i]!), fc.constantFrom(...wrongTypes(valid, all[i]!)))),
        async ([path, value]) => {
          const error = await dataError(report(set(valid, path, value)))
          expect(error.message).not.toMatch(/\n/)
          expect(error.file).toBe(join(dir, 'run.json'))
          const field = error.field ?? ''
          const dotted = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('').replace(/^\./, '')
          expect(dotted.startsWith(field.replace(/\.$/, '')), `${dotted} → ${error.message}`).toBe(true)
        },
      ),
      { numRuns: 250, seed: 31 },
    )
  })

  // Missing manifest, null headline, huge or negative shares and counts, NaN-like strings, nested wrong types.
  it.each(NAMED.map(([path, value, pattern]) => [`${path.join('.')} = ${JSON.stringify(value) ?? 'missing'}`, path, value, pattern] as const))('%s: refused by name', async (_, path, value, pattern) => {
    const error = await dataError(report(set(valid, path, value)))
    expect(error.message).toMatch(pattern)
  })
})

describe('sceptic merge: a part file field of the wrong type is one DataError naming the file', () => {
  let dir: string
  let lines: Json[]
  let records: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sceptic-run-json-merge-'))
    writeFileSync(join(dir, 'data.jsonl'), DECISIONS.map((d) => JSON.stringify(d)).join('\n') + '\n')
    writeFileSync(join(dir, 'scorer.mjs'), 'export default (rs) => rs.map((r, i) => r.state === "s5" ? { failure: "http_error", message: "x" } : r.criterion.options.map((o, k) => (k === i % 3 ? 0.6 : 0.2)))\n')
    expect(await commands.evaluate!.run([join(dir, 'data.jsonl'), '--scorer', join(dir, 'scorer.mjs'), '--shard', '1/1', '--records-out', join(dir, 'p.records.jsonl')])).toBe(0)
    lines = readFileSync(join(dir, 'p.records.shard.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json)
    records = readFileSync(join(dir, 'p.records.jsonl'), 'utf8')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('property: a header, row or answer field of another type is refused in one line naming the part file', async () => {
    // The header, two decision rows and two answers: each line kind.
    const picked = [0, 1, 2, lines.length - 2, lines.length - 1]
    const all = picked.flatMap((line) => paths(lines[line]!).filter((path) => wrongTypes(lines[line]!, path).length > 0).map((path) => ({ line, path })))
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: all.length - 1 }).chain((i) => fc.tuple(fc.constant(all[i]!), fc.constantFrom(...wrongTypes(lines[all[i]!.line]!, all[i]!.path)))),
        async ([{ line, path }, value]) => {
          const out = temp()
          const copy = lines.slice()
          copy[line] = set(lines[line]!, path, value)
          writeFileSync(join(out, 'q.records.shard.jsonl'), copy.map((l) => JSON.stringify(l)).join('\n') + '\n')
          writeFileSync(join(out, 'q.records.jsonl'), records)
          const error = await dataError(() => commands.merge!.run([join(out, 'q.records.jsonl')]))
          expect(error.message).not.toMatch(/\n/)
          expect(error.file).toBe(join(out, 'q.records.shard.jsonl'))
        },
      ),
      { numRuns: 120, seed: 32 },
    )
  })
})
