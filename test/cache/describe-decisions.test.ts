// describeDecisions with `cache`: suites in one worker share the store; `false` turns it off.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EvalResult, ScoreRequest } from '../../src/core/index.ts'
import { describeDecisions } from '../../src/vitest/suite/describe-decisions.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { decision } from '../helpers/decisions.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-suite-cache-')

let requests = 0
const scorer = Object.assign(
  (batch: readonly ScoreRequest[]) => {
    requests += batch.length
    return batch.map((r) => r.criterion.options.map((o, slot) => (o.id === 'o1' ? 3 : 1) + slot))
  },
  { cacheKey: 'suite-test v1' },
)
const data = Array.from({ length: 10 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: `s${i}` }))
const results: Record<string, EvalResult> = {}
const seen: number[] = []

describeDecisions('cold', { data, scorer, cache: { dir, mode: 'read-write' }, baseline: false }, (result) => {
  results.cold = result
  seen.push(requests)
})
describeDecisions('warm', { data, scorer, cache: { dir, mode: 'read-write' }, baseline: false }, (result) => {
  results.warm = result
  seen.push(requests)
})
describeDecisions('off', { data, scorer, cache: false, baseline: false }, (result) => {
  results.off = result
  seen.push(requests)
})

describe('describeDecisions and the cache', () => {
  it('scores once, serves the second suite from the cache, and scores again with the cache off', () => {
    expect(seen).toEqual([30, 30, 60])
    expect(results.cold!.manifest.cache).toEqual({ hits: 0, misses: 30 })
    expect(results.warm!.manifest.cache).toEqual({ hits: 30, misses: 0 })
    expect(results.off!.manifest.cache).toBeUndefined()
    expect(results.warm!.records).toEqual(results.off!.records)
    expect(readdirSync(join(dir, 'segments'))).toHaveLength(1)
  })
})

// A remote scorer: the warm suite re-checks 8 hits live against the same server.
const server = await startFakeOpenAI()
afterAll(() => server.close())
const remote = openAIScorer({ baseURL: server.baseURL, model: 'triage', retries: 0 })
const remoteData = Array.from({ length: 6 }, (_, i) => decision(3, i % 3, { id: `r${i}`, state: `The ticket mentions Option ${i % 3}.` }))
const remoteSeen: number[] = []
for (const name of ['remote cold', 'remote warm'])
  describeDecisions(name, { data: remoteData, scorer: remote, debias: 'cyclic', cache: { dir: join(dir, 'remote'), mode: 'read-write' }, baseline: false }, (result) => {
    results[name] = result
    remoteSeen.push(server.received.length)
  })

describe('describeDecisions with a remote scorer and the cache', () => {
  it('re-checks 8 hits live in the warm suite and says so in the manifest', () => {
    expect(remoteSeen).toEqual([18, 26])
    expect(results['remote cold']!.manifest.cache).toEqual({ hits: 0, misses: 18, verified: 0 })
    expect(results['remote warm']!.manifest.cache).toEqual({ hits: 18, misses: 0, verified: 8 })
    expect(results['remote warm']!.balancedAccuracy).toBe(results['remote cold']!.balancedAccuracy)
  })
})
