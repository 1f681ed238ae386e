import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cachedScorer, slices } from '../../src/cache/cached-scorer.ts'
import type { CacheIdentity } from '../../src/cache/key.ts'
import { CacheStore } from '../../src/cache/store.ts'
import { evaluateWithScorer, recordsToJsonl, resultToJson, scoreFailure, type Decision, type DebiasMode, type EvalResult, type FallibleScoreFn, type ScoreRequest } from '../../src/core/index.ts'
import { render } from '../../src/report/index.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { decision } from '../helpers/decisions.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { useTempDirs } from '../helpers/temp.ts'

const temp = useTempDirs('sceptic-cached-', { after: 'each' })

const identity: CacheIdentity = { kind: 'user', label: 'test scorer', settings: { cacheKey: 'v1' } }

/** A deterministic scorer that reads content and position (so orderings matter), counting requests. */
function counting(): FallibleScoreFn & { calls: number; requests: number } {
  const fn = Object.assign(
    (requests: readonly ScoreRequest[]) => {
      fn.calls++
      fn.requests += requests.length
      return requests.map((r) => r.criterion.options.map((o, slot) => ((o.id.charCodeAt(1) * 7 + r.state.length * 3 + slot * 5) % 11) + 1 + (r.epoch ?? 0)))
    },
    { calls: 0, requests: 0 },
  )
  return fn
}

/** JSON of a result without what may differ between a cached and an uncached run. */
function comparable(result: EvalResult): unknown {
  const json = structuredClone(resultToJson(result)) as { manifest: Record<string, unknown> }
  delete json.manifest.started
  delete json.manifest.seconds
  delete json.manifest.cache
  return json
}

// Decision ids are unique (the loader's rule); states may repeat.
const decisionsArb = fc.uniqueArray(
  fc.tuple(fc.integer({ min: 2, max: 5 }), fc.nat(), fc.string({ maxLength: 8 })).map(([k, a, s]) => decision(k, a % k, { id: `d${s}`, state: `state ${s}` })),
  { minLength: 1, maxLength: 12, selector: (d) => d.id },
)

describe('cachedScorer', () => {
  it('is transparent to the description: the run names the wrapped scorer, not the wrapper', async () => {
    const decisions = [decision(2, 0, { id: 'a' }), decision(3, 1, { id: 'b' })]
    const options = { debias: 'none' as const, statistics: false as const }
    const store = new CacheStore(temp())
    const described = Object.assign(counting(), { description: 'onnx models/tiny' })
    expect((await evaluateWithScorer(decisions, cachedScorer(described, { identity, store }), options)).manifest.scorer).toBe('onnx models/tiny')
    function reader(requests: readonly ScoreRequest[]) {
      return requests.map((r) => r.criterion.options.map(() => 1))
    }
    expect((await evaluateWithScorer(decisions, cachedScorer(reader, { identity, store }), options)).manifest.scorer).toBe('reader (ScoreFn)')
    await store.close()
  })

  it('cold, warm and uncached runs give the same JSON and records; warm calls the scorer zero times', async () => {
    await fc.assert(
      fc.asyncProperty(decisionsArb, fc.constantFrom<DebiasMode>('none', 'cyclic', 'calibrated', 'permutation'), async (decisions, debias) => {
        const dir = temp()
        const options = { debias, statistics: false as const, chunkSize: 7 }
        const plain = await evaluateWithScorer(decisions, counting(), options)
        const inner = counting()
        const store = new CacheStore(dir)
        const cold = await evaluateWithScorer(decisions, cachedScorer(inner, { identity, store, writeEvery: 3 }), options)
        await store.close()
        const after = inner.requests
        const warmStore = new CacheStore(dir)
        const warm = await evaluateWithScorer(decisions, cachedScorer(inner, { identity, store: warmStore }), options)
        await warmStore.close()
        expect(inner.requests).toBe(after)
        expect(comparable(cold)).toEqual(comparable(plain))
        expect(comparable(warm)).toEqual(comparable(plain))
        expect(recordsToJsonl(warm.records)).toBe(recordsToJsonl(plain.records))
        // A cold run may already hit: repeated decisions and calibrated mode's shared content-free requests.
        expect(cold.manifest.cache!.hits + cold.manifest.cache!.misses).toBe(plain.manifest.forwardPasses)
        expect(cold.manifest.cache!.misses).toBe(after)
        expect(warm.manifest.cache).toEqual({ hits: plain.manifest.forwardPasses, misses: 0 })
        expect(plain.manifest.cache).toBeUndefined()
      }),
      { numRuns: 25 },
    )
  })

  it('the report says how many requests the cache answered and how many were scored', async () => {
    const decisions = Array.from({ length: 1700 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: `s${i}` }))
    const dir = temp()
    const store = new CacheStore(dir)
    await evaluateWithScorer(decisions.slice(0, 1600), cachedScorer(counting(), { identity, store }), { debias: 'cyclic', statistics: false })
    const result = await evaluateWithScorer(decisions, cachedScorer(counting(), { identity, store }), { debias: 'cyclic', statistics: false })
    await store.close()
    expect(result.manifest.cache).toEqual({ hits: 4800, misses: 300 })
    expect(render(result, { color: false })).toMatch(/^cache\s+4,800 hits, 300 scored$/m)
  })

  it('failures and invalid vectors are never stored; an invalid one fails the run exactly as without a cache', async () => {
    const decisions = [decision(2, 0, { id: 'a', state: 'sa' }), decision(2, 1, { id: 'b', state: 'sb' })]
    const dir = temp()
    let round = 0
    const flaky: FallibleScoreFn = (requests) => requests.map((r) => (r.state === 'sa' && round === 0 ? scoreFailure('timeout', 'slow') : [0.7, 0.3]))
    const store = new CacheStore(dir)
    const first = await evaluateWithScorer(decisions, cachedScorer(flaky, { identity, store }), { debias: 'cyclic', statistics: false })
    expect(first.failed).toBe(1)
    round = 1
    const second = await evaluateWithScorer(decisions, cachedScorer(flaky, { identity, store }), { debias: 'cyclic', statistics: false })
    expect(second.failed).toBe(0)
    expect(second.manifest.cache).toEqual({ hits: 2, misses: 2 })
    const broken = (requests: readonly ScoreRequest[]) => requests.map(() => [NaN, 1])
    const other = { ...identity, settings: { cacheKey: 'broken' } }
    const without = await evaluateWithScorer(decisions, broken, { statistics: false }).catch((e: Error) => e.message)
    const withCache = await evaluateWithScorer(decisions, cachedScorer(broken, { identity: other, store }), { statistics: false }).catch((e: Error) => e.message)
    expect(withCache).toBe(without)
    expect(withCache).toMatch(/NaN at slot A/)
    await store.close()
    expect(new CacheStore(dir).size).toBe(4)
  })

  it('flags are cached with their vector', async () => {
    const decisions = [decision(2, 0, { id: 'a' })]
    const flagged: FallibleScoreFn = (requests) => requests.map(() => ({ probabilities: [0.6, 0.4], flags: ['missing_logprobs'] }))
    const dir = temp()
    const store = new CacheStore(dir)
    // The warm run's scorer is never called; it is described as the cold one's (the cache names what it wraps).
    const options = { statistics: false as const, scorerDescription: 'flagged' }
    const cold = await evaluateWithScorer(decisions, cachedScorer(flagged, { identity, store }), options)
    await store.close()
    const warm = await evaluateWithScorer(decisions, cachedScorer(() => [], { identity, store: new CacheStore(dir) }), options)
    expect(warm.manifest.flagged).toEqual({ missing_logprobs: 1 })
    expect(comparable(warm)).toEqual(comparable(cold))
  })

  it('read-only serves what is there and writes nothing', async () => {
    const decisions = [decision(2, 0, { id: 'a', state: 'x' }), decision(2, 1, { id: 'b', state: 'y' })]
    const dir = temp()
    const ro = new CacheStore(dir, { mode: 'read-only' })
    const inner = counting()
    await evaluateWithScorer(decisions, cachedScorer(inner, { identity, store: ro }), { debias: 'cyclic', statistics: false })
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
    const rw = new CacheStore(dir)
    await evaluateWithScorer(decisions.slice(0, 1), cachedScorer(inner, { identity, store: rw }), { debias: 'cyclic', statistics: false })
    await rw.close()
    const result = await evaluateWithScorer(decisions, cachedScorer(inner, { identity, store: new CacheStore(dir, { mode: 'read-only' }) }), { debias: 'cyclic', statistics: false })
    expect(result.manifest.cache).toEqual({ hits: 2, misses: 2 })
    expect(readdirSync(join(dir, 'segments'))).toHaveLength(1)
  })

  it('slices cut only between decisions and cover every miss once, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 30 }), fc.integer({ min: 1, max: 10 }), (sizes, size) => {
        const requests: ScoreRequest[] = sizes.flatMap((n, d) => Array.from({ length: n }, () => ({ state: `s${d}`, prompt: '', criterion: { key: 'k', options: [] } }) as unknown as ScoreRequest))
        const missing = requests.map((_, i) => i)
        const parts = slices(requests, missing, size)
        expect(parts.flat()).toEqual(missing)
        for (const part of parts.slice(1)) expect(requests[part[0]! - 1]!.state).not.toBe(requests[part[0]!]!.state)
        for (const part of parts) expect(part.length).toBeLessThan(size + 6)
      }),
    )
  })

  it('a sampled HTTP scorer with 5 epochs stores 5 vectors per request, a rerun reuses all 5, and a new temperature misses', async () => {
    let calls = 0
    const server = await startFakeOpenAI(() => ({ kind: 'text', text: ` ${'AB'[calls++ % 3 === 0 ? 1 : 0]}` }))
    try {
      const decisions = Array.from({ length: 4 }, (_, i) => decision(2, i % 2, { id: `d${i}`, state: `s${i}` }))
      const dir = temp()
      const run = async (temperature: number) => {
        const score = openAIScorer({ baseURL: server.baseURL, model: 'm', mode: 'generate', temperature, retries: 0 })
        const store = new CacheStore(dir)
        try {
          return await evaluateWithScorer(decisions, cachedScorer(score, { identity: score.cacheIdentity, store }), { debias: 'cyclic', epochs: 5, statistics: false })
        } finally {
          await store.close()
        }
      }
      const cold = await run(0.7)
      expect(calls).toBe(4 * 2 * 5)
      // 4 decisions × 2 orderings × 5 epochs: one entry each, not one per request.
      expect(new CacheStore(dir).size).toBe(40)
      const warm = await run(0.7)
      expect(calls).toBe(40)
      // A sampling scorer's hits cannot be compared with a new draw: none is re-checked live (calls stayed 40).
      expect(warm.manifest.cache).toEqual({ hits: 40, misses: 0, verifySkipped: 'sampled' })
      expect(comparable(warm)).toEqual(comparable(cold))
      const hotter = await run(0.8)
      expect(calls).toBe(80)
      expect(hotter.manifest.cache).toEqual({ hits: 0, misses: 40, verifySkipped: 'sampled' })
    } finally {
      await server.close()
    }
  })
})
