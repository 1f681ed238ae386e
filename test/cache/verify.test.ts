// A remote scorer's cache hits are re-checked live: a server that changed its answers under
// the same model name fails the run instead of being judged by its old vectors.
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { resolveCache } from '../../src/cache/config.ts'
import { compareHits, maxDelta, Reservoir, verifyPlan, VERIFY_TOLERANCE } from '../../src/cache/verify.ts'
import { withCache } from '../../src/cache/with-cache.ts'
import { evaluateWithScorer, formatCacheCounts, type CacheCounts } from '../../src/core/index.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { decision } from '../helpers/decisions.ts'
import { startFakeOpenAI, type Behaviour } from '../helpers/fake-openai.ts'
import { useTempDirs } from '../helpers/temp.ts'

describe('the spot-check rules', () => {
  it('re-checks only remote, non-sampling scorers, and 0 opts out', () => {
    expect(verifyPlan({ kind: 'http', label: 'm', remote: true }, 8)).toBe('check')
    expect(verifyPlan({ kind: 'http', label: 'm', remote: true }, 0)).toBe('off')
    expect(verifyPlan({ kind: 'http', label: 'm', remote: true, sampled: true }, 8)).toBe('sampled')
    // ONNX (keyed by file digests) and user keys: never re-checked.
    expect(verifyPlan({ kind: 'onnx', label: 'models/tiny', files: {} }, 8)).toBe('none')
    expect(verifyPlan({ kind: 'user', label: 's', settings: { cacheKey: 'v1' } }, 8)).toBe('none')
  })

  it('samples min(size, n) distinct hits of the whole stream, the same every time, each hit equally likely', () => {
    fc.assert(
      fc.property(fc.nat(2_000), fc.nat(20), fc.integer(), (n, size, seed) => {
        const draw = () => {
          const reservoir = new Reservoir<number>(size, seed)
          for (let i = 0; i < n; i++) reservoir.offer(i)
          return reservoir.take()
        }
        const sample = draw()
        expect(sample).toHaveLength(Math.min(size, n))
        expect(new Set(sample).size).toBe(sample.length)
        for (const i of sample) expect(i >= 0 && i < n).toBe(true)
        expect(draw()).toEqual(sample)
      }),
    )
    // Uniform over the stream: over many seeds, hits of the second half are drawn half the time (not the first call's only).
    let late = 0
    for (let seed = 0; seed < 400; seed++) {
      const reservoir = new Reservoir<number>(8, seed)
      for (let i = 0; i < 40_000; i++) reservoir.offer(i)
      late += reservoir.take().filter((i) => i >= 20_000).length
    }
    expect(late / (400 * 8)).toBeGreaterThan(0.45)
    expect(late / (400 * 8)).toBeLessThan(0.55)
  })

  it('compares normalised vectors with a tolerance of 0.02 in probability; a live failure differs', () => {
    expect(VERIFY_TOLERANCE).toBe(0.02)
    // Scale does not matter: [2, 2] and [0.5, 0.5] are the same answer.
    expect(maxDelta([2, 2], [0.5, 0.5])).toBe(0)
    expect(maxDelta([0.6, 0.4], [0.615, 0.385])).toBeCloseTo(0.015, 12)
    expect(compareHits([[0.6, 0.4]], [[0.615, 0.385]])).toMatchObject({ checked: 1, differing: 0 })
    expect(compareHits([[0.6, 0.4]], [[0.625, 0.375]])).toMatchObject({ checked: 1, differing: 1 })
    // A near-tie flipped by jitter is equal; a real change is not.
    expect(compareHits([[0.505, 0.495]], [[0.495, 0.505]]).differing).toBe(0)
    expect(compareHits([[0.9, 0.1]], [[0.1, 0.9]])).toMatchObject({ differing: 1, maxDelta: expect.closeTo(0.8, 12) })
    expect(compareHits([[0.5, 0.5]], [{ failure: 'error', message: 'down' }])).toMatchObject({ differing: 1, failed: 1, firstFailure: 'down' })
    expect(compareHits([[0.5, 0.5]], [[0.3, 0.3, 0.4]])).toMatchObject({ differing: 1, failed: 1 })
  })

  it('reads the count from the option, then SCEPTIC_CACHE_VERIFY, else 8; bad values are one-line errors', () => {
    expect(resolveCache({}, { env: {} }).verify).toBe(8)
    expect(resolveCache({}, { env: { SCEPTIC_CACHE_VERIFY: '3' } }).verify).toBe(3)
    expect(resolveCache({ verify: 0 }, { env: { SCEPTIC_CACHE_VERIFY: '3' } }).verify).toBe(0)
    expect(() => resolveCache({ verify: -1 }, { env: {} })).toThrow(/^cache\.verify must be an integer ≥ 0 .*got -1$/)
    expect(() => resolveCache({}, { env: { SCEPTIC_CACHE_VERIFY: 'lots' } })).toThrow(/^SCEPTIC_CACHE_VERIFY must be an integer ≥ 0/)
  })

  it('the cache line says how many hits were re-checked, or why none was', () => {
    const line = (counts: CacheCounts) => formatCacheCounts(counts)
    expect(line({ hits: 4812, misses: 188, verified: 8 })).toBe('4,812 hits, 188 scored, 8 re-checked live')
    expect(line({ hits: 40, misses: 0, verifySkipped: 'sampled' })).toBe('40 hits, 0 scored, hits not re-checked live (a sampling scorer)')
    expect(line({ hits: 40, misses: 0, verifySkipped: 'off' })).toBe('40 hits, 0 scored, hits not re-checked live (cache verify 0)')
    // No hits, nothing to say; other scorers' lines are unchanged.
    expect(line({ hits: 0, misses: 40, verified: 0 })).toBe('0 hits, 40 scored')
    expect(line({ hits: 3, misses: 1 })).toBe('3 hits, 1 scored')
  })
})

describe('an openAIScorer behind the cache, against a real HTTP server on 127.0.0.1', () => {
  // The server's "weights": the fake model, or a new one that only ever answers A.
  let weights: 'old' | 'new' | 'down' = 'old'
  let server: Awaited<ReturnType<typeof startFakeOpenAI>>
  const tempDir = useTempDirs('sceptic-verify-', { after: 'each' })
  beforeAll(async () => {
    server = await startFakeOpenAI(
      (): Behaviour => (weights === 'old' ? { kind: 'ok' } : weights === 'new' ? { kind: 'only-letters', letters: ['A'] } : { kind: 'status', status: 400 }),
    )
  })
  afterAll(async () => server.close())
  afterEach(() => {
    weights = 'old'
  })

  // 6 decisions of 3 options under cyclic: 18 requests.
  const decisions = Array.from({ length: 6 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: `The ticket mentions Option ${i % 3}.` }))
  const cacheDir = () => {
    return join(tempDir(), 'cache')
  }
  const run = async (dir: string, verify?: number) => {
    const score = openAIScorer({ baseURL: server.baseURL, model: 'triage', retries: 0 })
    const before = server.received.length
    const result = await evaluateWithScorer(decisions, withCache(score, { cache: { dir, mode: 'read-write', ...(verify !== undefined ? { verify } : {}) } }), {
      debias: 'cyclic',
      statistics: false,
    })
    return { result, live: server.received.length - before, stats: score.stats() }
  }

  it('an unchanged server passes: 8 hits are re-scored live, counted in the HTTP stats and the cache line', async () => {
    const dir = cacheDir()
    const cold = await run(dir)
    expect(cold.live).toBe(18)
    expect(cold.result.manifest.cache).toEqual({ hits: 0, misses: 18, verified: 0 })
    const warm = await run(dir)
    expect(warm.live).toBe(8)
    expect(warm.stats.attempts).toBe(8)
    expect(Object.values(warm.stats.endpoints).map((e) => e.requests)).toEqual([8])
    expect(warm.result.manifest.cache).toEqual({ hits: 18, misses: 0, verified: 8 })
    expect(warm.result.balancedAccuracy).toBe(cold.result.balancedAccuracy)
    expect(formatCacheCounts(warm.result.manifest.cache!)).toBe('18 hits, 0 scored, 8 re-checked live')
  })

  it('a server that changed its answers under the same model name fails the run in one line', async () => {
    const dir = cacheDir()
    await run(dir)
    weights = 'new'
    const before = server.received.length
    const error = await run(dir).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.name).toBe('ScorerError')
    expect(error?.message).toMatch(
      /^triage at http:\/\/127\.0\.0\.1:\d+\/v1\/completions: the server's answers changed under the same model name: [1-8] of 8 re-checked cache hits differ \(max \|Δp\| 0\.\d{3}\); the cache is stale for this deployment: clear it \(`sceptic cache clear`\) or name the deployment distinctly$/,
    )
    expect(error?.message).not.toMatch(/\n/)
    expect(server.received.length - before).toBe(8)
  })

  it('a server that fails the re-checks fails the run: its hits could not be checked', async () => {
    const dir = cacheDir()
    await run(dir)
    // The same deployment (model and URL), now refusing every request.
    weights = 'down'
    const error = await run(dir).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error?.name).toBe('ScorerError')
    expect(error?.message).toMatch(/: 8 of 8 re-checked cache hits failed live \(first: .+\), so the cache could not be checked against the server; run again when it answers, or opt out of the check with cache verify 0$/)
  })

  it('fewer hits than the count: all are re-checked; verify 0 makes no live call', async () => {
    const dir = cacheDir()
    await run(dir)
    const three = await run(dir, 3)
    expect(three.live).toBe(3)
    expect(three.result.manifest.cache).toEqual({ hits: 18, misses: 0, verified: 3 })
    const all = await run(dir, 100)
    expect(all.live).toBe(18)
    expect(all.result.manifest.cache).toEqual({ hits: 18, misses: 0, verified: 18 })
    weights = 'new'
    const off = await run(dir, 0)
    expect(off.live).toBe(0)
    expect(off.result.manifest.cache).toEqual({ hits: 18, misses: 0, verifySkipped: 'off' })
  })
})
