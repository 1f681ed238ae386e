// Adversarial corpus, cache and merge: a cache or a merge never answers for something it
// did not check. Each case is something a hostile (or careless) user does to a cache
// directory, a model directory, a scorer module, a part file or a baseline, and asserts
// the verdict: the run fails (or warns and re-scores) exactly as a run without the stored
// artefact would. Every case failed to fail on the code before this corpus.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunnerTask, RunnerTestFile } from 'vitest'
import { cachedScorer } from '../../src/cache/cached-scorer.ts'
import { CacheStore } from '../../src/cache/store.ts'
import { cacheIdentityOf, withCache } from '../../src/cache/with-cache.ts'
import { decodeSegment, encodeHeader, encodeRecord } from '../../src/cache/segment.ts'
import { scorerId } from '../../src/cache/key.ts'
import { externalize } from '../../src/scorers/onnx/model/external-data.ts'
import { declaredExternalData } from '../../src/scorers/onnx/model/external-locations.ts'
import { loadOnnxProto } from '../../src/scorers/onnx/model/graph-io.ts'
import { evaluateWithScorer, type ScoreRequest } from '../../src/core/index.ts'
import { validateDecisions } from '../../src/core/decisions/load.ts'
import type { Decision } from '../../src/core/decisions/schema.ts'
import { parsePartFile, reassemble } from '../../src/core/shards/part-file.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { baselineFromResult, baselinePath, readBaseline, writeBaseline } from '../../src/suite/baseline/file.ts'
import { runBaselineGate } from '../../src/suite/baseline/run-gate.ts'
import { runEvaluation } from '../../src/run/run.ts'
import { parseRunSettings } from '../../src/run/settings.ts'
import { mergeDecisionShards } from '../../src/vitest/shards/merge.ts'
import type { ScepticSuiteMeta, ScepticTestMeta } from '../../src/suite/meta.ts'
import { refuseUninheritedProjects } from '../../src/vitest/plugin/projects-check.ts'
import { onnxScorer } from '../../dist/onnx/index.js'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { ROOT, sceptic } from '../helpers/run.ts'
import { cleanup, decisions, temp, writeData, writeScorer } from './helpers.ts'

afterAll(cleanup)

/** A scorer that reads the state, with a cache key (so the cache serves it), counting what reaches it. */
function reader(key = 'reader v1') {
  const calls = { requests: 0 }
  const score = Object.assign(
    (requests: readonly ScoreRequest[]) => {
      calls.requests += requests.length
      return requests.map((r) => r.criterion.options.map((o) => (r.state.includes(o.text) ? 0.8 : 0.2)))
    },
    { cacheKey: key },
  )
  return { score, calls }
}

describe('the ONNX key holds every input that can change a score or a failure', () => {
  const tooLong = async (model: string, cache: string | false, contextLength?: number) => {
    const scorer = onnxScorer({ model, workers: 1, ...(contextLength !== undefined ? { contextLength } : {}) })
    try {
      const score = cache === false ? scorer : withCache(scorer, { cache: { dir: cache, mode: 'read-write' } })
      // The run's verdict: how many failed too_long, or the error that ended it.
      return await evaluateWithScorer(decisions(4), score, { debias: 'cyclic', statistics: false }).then(
        (result) => `too_long ${result.manifest.failedByReason.too_long ?? 0}`,
        (error: Error) => `${error.name}: ${error.message}`,
      )
    } finally {
      await scorer.close()
    }
  }

  it('config.json shrinking the context after a warm cache: the warm run fails too_long exactly as a cold run', async () => {
    const model = temp()
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    const cache = join(temp(), 'cache')
    expect(await tooLong(model, cache)).toBe('too_long 0')
    writeFileSync(join(model, 'config.json'), JSON.stringify({ max_position_embeddings: 8 }))
    const cold = await tooLong(model, false)
    expect(cold).toMatch(/^ScorerError: every decision failed to score \(too_long 4\)/)
    expect(await tooLong(model, cache)).toBe(cold)
  }, 60_000)

  it('external data under any name the graph gives it (weights.bin): an edited byte misses; names outside the folder are never hashed', async () => {
    const model = temp()
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    const onnx = loadOnnxProto()
    const proto = onnx.ModelProto.decode(readFileSync(join(model, 'model.onnx')))
    const tensors = proto.graph!.initializer!
    const data = externalize(tensors.slice(0, 2), onnx.TensorProto.DataLocation.EXTERNAL, { location: 'weights.bin', minBytes: 16, align: 64 })
    // A crafted name pointing out of the folder: ORT refuses it, the key must not read it.
    externalize(tensors.slice(2, 3), onnx.TensorProto.DataLocation.EXTERNAL, { location: '../outside.bin', minBytes: 16, align: 64 })
    writeFileSync(join(model, 'model.onnx'), onnx.ModelProto.encode(proto).finish())
    writeFileSync(join(model, 'weights.bin'), data)
    expect(declaredExternalData(join(model, 'model.onnx'))).toEqual([join(model, 'weights.bin')])
    const identity = () => onnxScorer({ model }).cacheIdentity!
    const before = await scorerId(identity(), undefined)
    const bytes = readFileSync(join(model, 'weights.bin'))
    bytes[bytes.length >> 1]! ^= 1
    writeFileSync(join(model, 'weights.bin'), bytes)
    expect(await scorerId(identity(), undefined)).not.toBe(before)
  })

  it('a smaller contextLength option after a warm cache: the warm run fails too_long exactly as a cold run', async () => {
    const model = temp()
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    const cache = join(temp(), 'cache')
    expect(await tooLong(model, cache)).toBe('too_long 0')
    const cold = await tooLong(model, false, 8)
    expect(cold).toMatch(/^ScorerError: every decision failed to score \(too_long 4\)/)
    expect(await tooLong(model, cache, 8)).toBe(cold)
  }, 60_000)
})

describe('a remote scorer\'s hits are re-checked over the whole run', () => {
  // Old weights answer by content; the new deployment answers A for tickets of the second half only.
  let changed = false
  let server: Awaited<ReturnType<typeof startFakeOpenAI>>
  beforeAll(async () => {
    server = await startFakeOpenAI((body: { prompt: string }) => {
      const ticket = Number(/Ticket (\d+)/.exec(body.prompt)?.[1] ?? 0)
      return changed && ticket >= 20 ? { kind: 'only-letters', letters: ['A'] } : { kind: 'ok' }
    })
  })
  afterAll(async () => server.close())
  const run = (dir: string) =>
    evaluateWithScorer(decisions(40), withCache(openAIScorer({ baseURL: server.baseURL, model: 'triage', retries: 0 }), { cache: { dir, mode: 'read-write' } }), {
      debias: 'cyclic',
      statistics: false,
      chunkSize: 16,
    })

  it('a deployment that changed its answers on the second half of the file fails the warm run', async () => {
    const dir = join(temp(), 'cache')
    await run(dir)
    changed = true
    try {
      await expect(run(dir)).rejects.toThrow(/the server's answers changed under the same model name: \d of 8 re-checked cache hits differ/)
    } finally {
      changed = false
    }
  })

  it('an unchanged deployment passes, and its re-checks reach past the first call', async () => {
    const dir = join(temp(), 'cache')
    await run(dir)
    const before = server.received.length
    const warm = await run(dir)
    expect(warm.manifest.cache).toEqual({ hits: 80, misses: 0, verified: 8 })
    const rechecked = server.received.slice(before).map((r) => Number(/Ticket (\d+)/.exec(JSON.stringify(r))?.[1]))
    expect(rechecked).toHaveLength(8)
    // The first call holds tickets 0-7; the old check never looked past it.
    expect(Math.max(...rechecked)).toBeGreaterThanOrEqual(8)
  })
})

describe('a checksum-valid cache record with an unusable vector is ignored with a warning and re-scored', () => {
  it.each([
    ['NaN', [Number.NaN, 1]],
    ['a negative', [-0.5, 1]],
    ['all zeros', [0, 0]],
    ['Infinity', [Number.POSITIVE_INFINITY, 1]],
  ])('a record holding %s: one warning, that request scored again, the result as cold', async (_, vector) => {
    const dir = join(temp(), 'cache')
    const cold = reader()
    const data = decisions(6)
    const first = await evaluateWithScorer(data, withCache(cold.score, { cache: { dir, mode: 'read-write' } }), { debias: 'cyclic', statistics: false })
    // Rewrite the segment with one record's vector replaced, checksums recomputed.
    const folder = join(dir, 'segments')
    const [name] = readdirSync(folder)
    const decoded = decodeSegment(readFileSync(join(folder, name!)))
    expect(decoded.entries).toHaveLength(12)
    const entries = decoded.entries.map((entry, i) => (i === 0 ? { ...entry, vector: Float64Array.from(vector) } : entry))
    writeFileSync(join(folder, name!), Buffer.concat([encodeHeader(), ...entries.map(encodeRecord)]))
    const warnings: string[] = []
    const warm = reader()
    // A fresh store (withCache keeps the one this process opened, already loaded).
    const store = new CacheStore(dir, { onWarning: (m) => warnings.push(m) })
    const second = await evaluateWithScorer(data, cachedScorer(warm.score, { identity: cacheIdentityOf(warm.score)!, store }), { debias: 'cyclic', statistics: false })
    await store.close()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/1 record with an unusable vector \(NaN, infinite, negative or all zero\) ignored; their requests are scored again$/)
    expect(warm.calls.requests).toBe(1)
    expect(second.manifest.cache).toEqual({ hits: 11, misses: 1 })
    expect(second.records).toEqual(first.records)
  })
})

describe('a --scorer module is keyed by its own bytes', () => {
  it('an edited module with the same cacheKey misses every request (it served the old vectors)', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(4, (i) => `Ticket ${i} about ${i % 2 === 0 ? 'Billing' : 'Technical support'}`))
    const cache = join(dir, 'cache')
    const body = (high: number) => `export const cacheKey = 'same'\nexport default (requests) => requests.map((r) => r.criterion.options.map((o) => (r.state.includes(o.text) ? ${high} : 0.1)))\n`
    const module = writeScorer(dir, body(0.9))
    const cold = await sceptic(['evaluate', data, '--scorer', module, '--cache', cache, '--cache-mode', 'read-write', '--json-out', join(dir, 'cold.json')])
    expect(cold.code, cold.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'cold.json'), 'utf8')).balancedAccuracy).toBe(1)
    // Now a scorer that prefers the wrong option; same cacheKey, as a forgetful author leaves it.
    writeScorer(dir, body(0.01))
    const edited = await sceptic(['evaluate', data, '--scorer', module, '--cache', cache, '--cache-mode', 'read-write', '--json-out', join(dir, 'edited.json')])
    expect(edited.code, edited.stderr).toBe(0)
    const json = JSON.parse(readFileSync(join(dir, 'edited.json'), 'utf8'))
    expect(json.manifest.cache).toEqual({ hits: 0, misses: 8 })
    expect(json.balancedAccuracy).toBe(0)
  })
})

describe('sceptic merge recomputes what the parts claim', () => {
  let dir = ''
  const records = (i: number) => join(dir, `p${i}.records.jsonl`)
  const partFile = (i: number) => join(dir, `p${i}.records.shard.jsonl`)
  const original: string[] = []
  beforeAll(async () => {
    dir = temp()
    const data = writeData(dir, decisions(12))
    const module = writeScorer(dir, "export default (requests) => requests.map((r) => r.criterion.options.map((o) => (r.state.includes(o.text) ? 0.9 : 0.1)))\n")
    for (const i of [1, 2]) {
      const run = await sceptic(['evaluate', data, '--scorer', module, '--no-cache', '--shard', `${i}/2`, '--records-out', records(i)])
      expect(run.code, run.stderr).toBe(0)
      original.push(readFileSync(partFile(i), 'utf8'))
    }
  }, 60_000)
  const lines = (i: number) => original[i - 1]!.trimEnd().split('\n')
  const parse = (texts: string[]) => texts.map((text, i) => parsePartFile(text, `p${i + 1}`))
  const rowLines = (i: number) => lines(i).filter((line) => JSON.parse(line).position !== undefined)

  it('a part whose row was edited (its gold changed) is refused: exit 3, the fingerprint named', async () => {
    const edited = lines(1).map((line) => {
      const value = JSON.parse(line)
      if (value.position === undefined || value.decision.answer_id === undefined) return line
      value.decision.answer_id = value.decision.answer_id === 'billing' ? 'tech' : 'billing'
      return JSON.stringify(value)
    })
    writeFileSync(partFile(1), edited.join('\n') + '\n')
    try {
      const merged = await sceptic(['merge', records(1), records(2), '--json-out', join(dir, 'm.json')])
      expect(merged.code).toBe(3)
      expect(merged.stderr.trim().split('\n')).toHaveLength(1)
      expect(merged.stderr).toMatch(/have the data fingerprint [0-9a-f]+, but their headers record [0-9a-f]+: a part's rows were changed after it was written/)
    } finally {
      writeFileSync(partFile(1), original[0]!)
    }
  })

  it('a row moved into another part is refused, naming the part and the shard that scores it', () => {
    const moved = rowLines(1)[0]!
    const one = lines(1).filter((line) => line !== moved)
    const two = [...lines(2), moved]
    expect(() => reassemble(parse([one.join('\n'), two.join('\n')]))).toThrow(/^p2: holds row \d+ of the data file, which shard 1\/2 scores, not 2\/2: its rows do not match its header$/)
  })

  it('parts whose headers disagree on the data file\'s row count are refused', () => {
    const header = JSON.parse(lines(2)[0]!)
    const two = [JSON.stringify({ ...header, rows: header.rows + 1 }), ...lines(2).slice(1)]
    expect(() => reassemble(parse([lines(1).join('\n'), two.join('\n')]))).toThrow(/its row count 13 differs from p1's 12: these parts are not from one run/)
  })
})

describe('the merged baseline gate keeps the local guard: a baseline belongs to one suite', () => {
  it('two suites whose names give one file name: under shard: \'decisions\' the second fails other-suite instead of comparing', async () => {
    const dir = temp()
    const all = validateDecisions(decisions(8))
    const score = reader().score
    const path = baselinePath(join(dir, 'baselines'), 'Triage A')
    expect(baselinePath(join(dir, 'baselines'), 'triage-a')).toBe(path)
    await writeBaseline(path, baselineFromResult('Triage A', await evaluateWithScorer(all, score, { debias: 'cyclic', scorerDescription: 'fixture' })))
    const gate = { name: 'order consistency vs baseline', baseline: { path, file: 'baselines/triage-a.json', alpha: 0.05, detectableDrop: 0.1 } }
    const files = await Promise.all([1, 2].map((index) => shardCopy(dir, 'triage-a', all, score, index, gate)))
    const [merged] = await mergeDecisionShards(files, dir)
    expect(merged!.outcome).toEqual({ parts: 2, failed: ['order consistency vs baseline'] })
    const test = (files[0]!.tasks[0] as RunnerTask & { tasks: RunnerTask[] }).tasks[0]!
    expect(test.result!.state).toBe('fail')
    expect(test.result!.errors![0]!.message).toMatch(/^baseline baselines\/triage-a\.json belongs to suite "Triage A", not "triage-a": their names give the same file name/)
  })
})

describe('the Vitest merge decides a deferred threshold from the suite\'s definition, never from a bound stored in the blob', () => {
  const all = validateDecisions(decisions(8, (i) => `Ticket ${i} about Billing`))
  const score = reader().score
  // Half right: balanced accuracy 0.5, below the suite's 0.9.
  const copies = (bounds: [number, number], declared: [number, number]) =>
    Promise.all([1, 2].map((index) => shardCopy(temp(), 'suite', all, score, index, { name: 'balancedAccuracy ≥ 0.9' }, { bound: bounds[index - 1]!, declared: declared[index - 1]! })))
  const testOf = (file: RunnerTestFile) => (file.tasks[0] as RunnerTask & { tasks: RunnerTask[] }).tasks[0]!

  it('a blob whose test bound was edited to 0 (name and suite still say 0.9) fails the check instead of passing it', async () => {
    const files = await copies([0, 0], [0.9, 0.9])
    const [merged] = await mergeDecisionShards(files, files[0]!.filepath)
    expect(merged!.outcome).toEqual({ parts: 2, failed: ['balancedAccuracy ≥ 0.9'] })
    expect(testOf(files[0]!).result!.state).toBe('fail')
    expect(testOf(files[0]!).result!.errors![0]!.message).toMatch(/is not one the suite declares/)
  })

  it('shards that ran different definitions (0.9 in one, 0.1 in the other) fail every deferred check', async () => {
    const files = await copies([0.9, 0.1], [0.9, 0.1])
    const [merged] = await mergeDecisionShards(files, files[0]!.filepath)
    expect((merged!.outcome as { failed: string[] }).failed).toEqual(['balancedAccuracy ≥ 0.9'])
    expect(testOf(files[0]!).result!.errors![0]!.message).toMatch(/the shards ran different definitions of the suite/)
  })

  it('a consistent blob is decided on the suite\'s bound: 0.5 is below 0.9', async () => {
    const files = await copies([0.9, 0.9], [0.9, 0.9])
    await mergeDecisionShards(files, files[0]!.filepath)
    expect(testOf(files[0]!).result!.errors![0]!.message).toBe('expected balancedAccuracy ≥ 0.9: 0.500 is below the bound 0.90')
  })
})

describe('a hand-edited baseline is refused, naming the file', () => {
  const recorded = async () => {
    const dir = temp()
    const path = join(dir, 'suite.json')
    const result = await evaluateWithScorer(validateDecisions(decisions(10)), reader().score, { debias: 'cyclic', scorerDescription: 'fixture' })
    await writeBaseline(path, baselineFromResult('suite', result))
    return { path, result }
  }

  it('per-decision consistency flags that contradict the stored order consistency: the gate fails, naming the file', async () => {
    const { path, result } = await recorded()
    const text = readFileSync(path, 'utf8')
    // Every decision "consistent: false" at baseline: any run would look like an improvement.
    writeFileSync(path, text.replaceAll('"consistent":true', '"consistent":false'))
    await expect(readBaseline(path)).rejects.toThrow(`baseline ${path}: it stores order consistency 1 but its decisions' consistent flags give 0.000: the file was edited by hand`)
    await expect(runBaselineGate('suite', result, { path, file: 'suite.json', mode: 'none', ci: true, gate: { alpha: 0.05, detectableDrop: 0.1 } })).rejects.toThrow(path)
  })

  it('strict flags that contradict the stored circular accuracy, or an n that is not the decisions listed, are refused', async () => {
    const { path } = await recorded()
    const text = readFileSync(path, 'utf8')
    writeFileSync(path, text.replaceAll('"strict":true', '"strict":false'))
    await expect(readBaseline(path)).rejects.toThrow(/it stores circular accuracy 0\.5 but its decisions' strict flags give 0\.000/)
    writeFileSync(path, text.replace('"n": 10', '"n": 11'))
    await expect(readBaseline(path)).rejects.toThrow(/it stores n 11 but lists 10 decisions/)
  })

  it('baselines the gate writes itself are accepted, for every multi-ordering debias mode and with failed requests', async () => {
    const dir = temp()
    const data = validateDecisions(decisions(12))
    const flaky = (requests: readonly ScoreRequest[]) =>
      requests.map((r, i) => (r.state.includes('Ticket 3 ') ? { failure: 'error' as const, message: 'down' } : r.criterion.options.map((o, slot) => (r.state.includes(o.text) ? 0.6 : 0.4) + (i % 3 === 0 ? slot * 0.3 : 0))))
    for (const debias of ['none', 'cyclic', 'permutation', 'calibrated', 'pride'] as const) {
      const path = join(dir, `${debias}.json`)
      await writeBaseline(path, baselineFromResult('s', await evaluateWithScorer(data, flaky, { debias, scorerDescription: 'fixture' })))
      expect((await readBaseline(path))?.suite, debias).toBe('s')
    }
  })
})

describe('a root sceptic() that no project inherits is refused at startup', () => {
  it('inline projects without extends: true and without the plugin: one line naming extends: true', () => {
    expect(() => refuseUninheritedProjects([{ test: { name: 'evals' } }, { test: { name: 'unit' } }])).toThrow(
      /^vitest-sceptic: sceptic\(\) is in the root config, but none of its 2 test\.projects inherits it; add `extends: true`/,
    )
    // Inherited, listed in a project's own plugins, or projects Vitest reads from files: left alone.
    expect(() => refuseUninheritedProjects([{ extends: true, test: {} }, { test: {} }])).not.toThrow()
    expect(() => refuseUninheritedProjects([{ plugins: [[{ name: 'vitest:sceptic' }]], test: {} }])).not.toThrow()
    expect(() => refuseUninheritedProjects(['packages/*'])).not.toThrow()
    expect(() => refuseUninheritedProjects(undefined)).not.toThrow()
  })
})

/** One shard's copy of suite `suite` as a blob holds it, with one deferred baseline test. */
async function shardCopy(
  dir: string,
  suite: string,
  all: readonly Decision[],
  score: (r: readonly ScoreRequest[]) => number[][],
  index: number,
  deferred: NonNullable<ScepticTestMeta['deferred']>,
  threshold?: { bound: number; declared: number },
): Promise<RunnerTestFile> {
  const { part } = await runEvaluation(all, { score: score, description: 'fixture', manifest: {} }, parseRunSettings({ debias: 'cyclic' }), { cache: false, shard: { spec: { index, count: 2 }, label: 'vitest --shard' } })
  const thresholds = threshold ? { balancedAccuracy: threshold.declared } : {}
  const suiteMeta: ScepticSuiteMeta = { schema: 1, suite, thresholds, shard: { index, count: 2, part, maxFailureRate: 0 } }
  const testMeta: ScepticTestMeta = threshold ? { suite, check: 'balancedAccuracy', bound: threshold.bound, deferred } : { suite, check: 'baseline', deferred }
  const testTask = { id: 'f_0_0', type: 'test', name: 'deferred', mode: 'skip', meta: { sceptic: testMeta }, result: { state: 'skip', note: 'deferred' } }
  const suiteTask = { id: 'f_0', type: 'suite', name: suite, mode: 'run', meta: { sceptic: suiteMeta }, tasks: [testTask], result: { state: 'pass' } }
  return { id: 'f', type: 'suite', name: 'x.eval.ts', filepath: join(dir, 'x.eval.ts'), projectName: '', mode: 'run', meta: {}, tasks: [suiteTask], result: { state: 'pass' } } as unknown as RunnerTestFile
}
