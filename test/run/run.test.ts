// runEvaluation: the one pipeline both front ends run. The CLI's numbers equal an in-process
// run's; the timeout, the signal, shards and the scorer's live manifest behave the same for all.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadDecisions } from '../../src/core/decisions/load.ts'
import { resultToJson } from '../../src/core/result/result.ts'
import type { ScoreFn } from '../../src/core/scorer/contract.ts'
import { parsePartFile } from '../../src/core/shards/part-file.ts'
import { runEvaluation, type RunScorer } from '../../src/run/run.ts'
import { parseRunSettings } from '../../src/run/settings.ts'
import { alwaysFirst, byId, decision } from '../helpers/decisions.ts'
import { ROOT, sceptic } from '../helpers/run.ts'

const dir = mkdtempSync(join(tmpdir(), 'sceptic-run-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fixture = (score: ScoreFn, manifest: Record<string, unknown> = {}): RunScorer => ({ score, description: 'fixture', manifest })
/** A result without what differs between two runs of the same numbers (time, the scorer's name). */
const numbers = (json: ReturnType<typeof resultToJson>) => ({ ...json, manifest: { ...json.manifest, started: '', seconds: 0, scorer: '' } })

describe('runEvaluation', () => {
  it('gives the CLI\'s numbers: sceptic evaluate and an in-process run of the same settings agree', async () => {
    const data = join(ROOT, 'examples/data/tickets.jsonl')
    const out = join(dir, 'cli.json')
    const flags = ['--debias', 'permutation', '--seed', '7', '--epochs', '2', '--reducer', 'median', '--average', 'log']
    const { code } = await sceptic(['evaluate', data, '--scorer', 'examples/scorers/keyword-reader.mjs', '--no-cache', '--json-out', out, ...flags])
    expect(code).toBe(0)
    const reader = (await import(join(ROOT, 'examples/scorers/keyword-reader.mjs'))).default as ScoreFn
    const settings = parseRunSettings({ debias: 'permutation', seed: 7, epochs: 2, reducer: 'median', average: 'log' })
    const { result } = await runEvaluation(await loadDecisions(data), fixture(reader), settings, { cache: false })
    expect(numbers(resultToJson(result!))).toEqual(numbers(JSON.parse(readFileSync(out, 'utf8'))))
  })

  it('past settings.timeout: rejects with the caller\'s error, counting what was scored, and the scorer sees the abort', async () => {
    let seen: AbortSignal | undefined
    const hangs: ScoreFn = (requests, context) => {
      seen = context?.signal
      return new Promise(() => {})
    }
    const decisions = [decision(2, 0), decision(2, 1), decision(2, null)]
    const run = runEvaluation(decisions, fixture(hangs), parseRunSettings({ timeout: 50 }), {
      cache: false,
      timedOut: ({ scored, total }) => new Error(`late: ${scored} of ${total}`),
    })
    await expect(run).rejects.toThrow('late: 0 of 2')
    expect(seen?.aborted).toBe(true)
  })

  it('the caller\'s signal cancels it too', async () => {
    const controller = new AbortController()
    const hangs: ScoreFn = () => new Promise(() => {})
    const run = runEvaluation([decision(2, 0)], fixture(hangs), parseRunSettings({ timeout: 60_000 }), { cache: false, signal: controller.signal })
    controller.abort(new Error('stop'))
    await expect(run).rejects.toThrow('stop')
  })

  it('a shard scores its part, names it in the manifest and leaves a part file; one holding nothing labelled leaves an empty part', async () => {
    const decisions = Array.from({ length: 12 }, (_, i) => decision(3, i % 3, { id: `q${i}` }))
    const settings = parseRunSettings({})
    let parts = 0
    let scored = 0
    for (const index of [1, 2, 3]) {
      const { result, part, labelled } = await runEvaluation(decisions, fixture(byId((id) => (id === 'o0' ? 3 : 1))), settings, {
        cache: false,
        shard: { spec: { index, count: 3 }, label: '--shard' },
      })
      const parsed = parsePartFile(part!, `part ${index}`)
      expect(parsed.header.shard).toEqual({ index, count: 3 })
      expect(parsed.header.settings).toEqual({ debias: 'cyclic', seed: 0, epochs: 1, reducer: 'mean', average: 'probability', storePrompts: false })
      expect(parsed.header.records).toBe(labelled.scored)
      expect(labelled.all).toBe(12)
      if (result) expect(result.manifest.shard).toBe(`${index}/3`)
      parts++
      scored += labelled.scored
    }
    expect([parts, scored]).toEqual([3, 12])
    const unlabelled = [decision(2, null, { id: 'u1' }), decision(2, null, { id: 'u2' })]
    const empty = await runEvaluation(unlabelled, fixture(alwaysFirst), settings, { cache: false, shard: { spec: { index: 1, count: 2 }, label: '--shard' } })
    expect(empty.result).toBeUndefined()
    expect(parsePartFile(empty.part!, 'empty').header.records).toBe(0)
  })

  it('reads the scorer\'s live manifest entries when the run ends, beside the run\'s own', async () => {
    let calls = 0
    const counted: ScoreFn = (requests) => ((calls += requests.length), alwaysFirst(requests))
    const manifest = Object.defineProperty({ model: 'm' }, 'requests', { get: () => calls, enumerable: true })
    const { result } = await runEvaluation([decision(2, 0), decision(2, 1)], fixture(counted, manifest), parseRunSettings({}), { cache: false, manifest: { note: 'x' } })
    expect(result!.manifest).toMatchObject({ model: 'm', requests: 4, note: 'x' })
  })

  it('puts the scorer behind the cache: a second run is served from it and scores nothing', async () => {
    let calls = 0
    const counted = Object.assign((requests: Parameters<ScoreFn>[0]) => ((calls += requests.length), alwaysFirst(requests)), { cacheKey: 'counted-v1' })
    const scorer: RunScorer = { ...fixture(counted as ScoreFn), identity: { kind: 'user', label: 'counted', settings: { cacheKey: 'counted-v1' } } }
    const decisions = [decision(2, 0, { id: 'c1' }), decision(2, 1, { id: 'c2' })]
    const cache = { dir: join(dir, 'cache'), mode: 'read-write' as const }
    const first = await runEvaluation(decisions, scorer, parseRunSettings({}), { cache })
    const second = await runEvaluation(decisions, scorer, parseRunSettings({}), { cache })
    expect(calls).toBe(4)
    expect(second.result!.manifest.cache).toMatchObject({ hits: 4, misses: 0 })
    // The same numbers as the run that scored, but for the cache counts.
    const uncached = (json: ReturnType<typeof resultToJson>) => ({ ...numbers(json), manifest: { ...numbers(json).manifest, cache: null } })
    expect(first.result!.manifest.cache).toMatchObject({ hits: 0, misses: 4 })
    expect(uncached(resultToJson(second.result!))).toEqual(uncached(resultToJson(first.result!)))
  })
})
