// Caches key on everything that decides the answer:
// - a user's `cacheKey` (on a scorer, or exported by a `--scorer` module) joins the scorer's
//   own identity: it changes the key, and never turns off a remote scorer's live re-checks;
// - the prepack cache (ONNX packed weights) notices an in-place weight edit whatever the mtime
//   says, on a weight file past the size it hashes whole: the next run uses the new weights.
import { createOpenAI } from '@ai-sdk/openai'
import { closeSync, cpSync, openSync, readFileSync, readSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scorerId } from '../../../src/cache/key.ts'
import { verifyPlan } from '../../../src/cache/verify.ts'
import { cacheIdentityOf } from '../../../src/cache/with-cache.ts'
import { evaluateWithScorer } from '../../../src/core/index.ts'
import { decisionModelScorer } from '../../../src/scorers/ai/index.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { externalize } from '../../../src/scorers/onnx/model/external-data.ts'
import { loadOnnxProto } from '../../../src/scorers/onnx/model/graph-io.ts'
import { onnxScorer } from '../../../dist/onnx/index.js'
import { biased, reader, startFakeDecisions } from '../../helpers/fake-decisions.mjs'
import { FIXTURES } from '../../helpers/vitest.ts'
import { ROOT, sceptic } from '../../helpers/run.ts'
import { cleanup, decisions, temp } from '../helpers.ts'

afterAll(cleanup)

describe('a cacheKey joins a scorer\'s own identity', () => {
  // Scorers with an identity of their own, and what their hits get: re-checked live or not.
  const SCORERS: [string, () => object, string][] = [
    ['decisionModelScorer', () => decisionModelScorer(createOpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-x' }).decisionModel('m')), 'check'],
    ['openAIScorer (logprobs)', () => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' }), 'check'],
    ['openAIScorer (generate, temperature 0.7)', () => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', mode: 'generate', temperature: 0.7 }), 'sampled'],
  ]
  for (const [name, make, plan] of SCORERS) {
    const keyed = (cacheKey: string) => cacheIdentityOf(Object.assign(make(), { cacheKey }))!
    it(`${name}: hits re-checked as without a key (${plan})`, () => {
      expect(verifyPlan(cacheIdentityOf(make())!, 8)).toBe(plan)
      expect(verifyPlan(keyed('v1'), 8)).toBe(plan)
    })
    it(`${name}: another cacheKey is another key, and its own settings stay in it`, async () => {
      const plain = await scorerId(cacheIdentityOf(make())!, undefined)
      const [v1, v2] = [await scorerId(keyed('v1'), undefined), await scorerId(keyed('v2'), undefined)]
      expect(v1).not.toBe(v2)
      expect(v1).not.toBe(plain)
      expect(JSON.stringify(keyed('v1').settings)).toContain(JSON.stringify(cacheIdentityOf(make())!.settings))
    })
  }

  it('a plain function keeps the key it had: its cacheKey alone', () => {
    expect(cacheIdentityOf(Object.assign(() => [], { cacheKey: 'v3' }), 'mine')).toEqual({ kind: 'user', label: 'mine', settings: { cacheKey: 'v3' } })
  })
})

describe('sceptic evaluate --scorer MODULE exporting a decisionModelScorer and a cacheKey', () => {
  // The deployment reads the state; later the same model name answers by position.
  let changed = false
  let server: Awaited<ReturnType<typeof startFakeDecisions>>
  beforeAll(async () => {
    const reads = reader()
    const first = biased(0.9)
    server = await startFakeDecisions({ decide: (question: unknown, state: string) => (changed ? first(question as never) : reads(question as never, state)) })
  })
  afterAll(() => server.close())

  it('a warm run whose server changed its answers fails on the live re-check (exit 4); an unchanged one passes, re-checked', async () => {
    const cache = join(temp(), 'cache')
    const env = { SCEPTIC_E2E_DIST: join(ROOT, 'dist'), SCEPTIC_CACHE_MODE: 'read-write', DECIDE_BASE_URL: server.baseURL, DECIDE_API_KEY: 'sk-keyed-0123456789abcdef' }
    const run = () => sceptic(['evaluate', join(FIXTURES, 'decide/data.jsonl'), '--scorer', join(FIXTURES, 'decide/keyed-scorer.mjs'), '--cache', cache, '--json-out', join(cache, '..', 'out.json')], { env })
    const cold = await run()
    expect(cold.code, cold.stderr).toBe(0)
    const warm = await run()
    expect(warm.code, warm.stderr).toBe(0)
    // Every hit up to 8 is re-checked live, as for the scorer without a module cacheKey.
    const { hits, verified } = JSON.parse(readFileSync(join(cache, '..', 'out.json'), 'utf8')).manifest.cache
    expect(hits).toBeGreaterThan(0)
    expect(verified).toBe(Math.min(8, hits))
    changed = true
    const stale = await run()
    expect(stale.code).toBe(4)
    expect(stale.stderr).toMatch(/answers changed under the same model name: \d+ of \d+ re-checked cache hits differ/)
  }, 60_000)
})

describe('the prepack cache notices an in-place weight edit whatever the mtime says', () => {
  const SAMPLES = 64
  const SAMPLE_BYTES = 64 * 1024
  /** Bytes of the weight file: past the 64 MiB the key hashes whole. */
  const SIZE = 66 * 2 ** 20

  /**
   * The tiny model with its weights in `weights.bin` (66 MiB): the tensors sit in a gap between
   * two of the blocks the key samples, so an edit of them touches no sampled byte.
   */
  function modelWithLargeWeights(): { model: string; weights: string; largest: { offset: number; length: number } } {
    const model = temp()
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    const onnx = loadOnnxProto()
    const proto = onnx.ModelProto.decode(readFileSync(join(model, 'model.onnx')))
    const tensors = proto.graph!.initializer!
    const blob = externalize(tensors, onnx.TensorProto.DataLocation.EXTERNAL, { location: 'weights.bin', minBytes: 1024, align: 64 })
    const sample = (i: number) => Math.floor(((SIZE - SAMPLE_BYTES) * i) / (SAMPLES - 1))
    const start = Math.ceil((sample(30) + SAMPLE_BYTES) / 64) * 64
    expect(start + blob.length).toBeLessThanOrEqual(sample(31))
    let largest = { offset: 0, length: 0 }
    for (const tensor of tensors) {
      if (!tensor.externalData?.length) continue
      const field = (key: string) => tensor.externalData!.find((entry) => entry.key === key)!
      const offset = Number(field('offset').value) + start
      field('offset').value = String(offset)
      const length = Number(field('length').value)
      if (length > largest.length) largest = { offset, length }
    }
    writeFileSync(join(model, 'model.onnx'), onnx.ModelProto.encode(proto).finish())
    const data = Buffer.alloc(SIZE)
    data.set(blob, start)
    const weights = join(model, 'weights.bin')
    writeFileSync(weights, data)
    return { model, weights, largest }
  }

  async function score(model: string, prepackCache?: string) {
    const scorer = onnxScorer({ model, workers: 1, ...(prepackCache ? { prepackCache } : {}) })
    try {
      const result = await evaluateWithScorer(decisions(4, (i) => `Ticket ${i}: the app crashes, Billing`), scorer, { debias: 'cyclic', statistics: false })
      return { prepacked: scorer.manifestEntries().prepacked, probabilities: result.records.map((record) => record.probabilities) }
    } finally {
      await scorer.close()
    }
  }

  it('weights edited in place, the mtime put back (utimes): the next run writes a new entry and scores the new weights', async () => {
    const { model, weights, largest } = modelWithLargeWeights()
    // A whole-second time, which utimes can put back exactly (as `touch -r` or a checkout would).
    const time = new Date('2026-01-01T00:00:00Z')
    utimesSync(weights, time, time)
    const cache = join(temp(), 'packed')
    const first = await score(model, cache)
    expect(first.prepacked).toMatch(/^written to /)
    const again = await score(model, cache)
    expect(again.prepacked).toBe(first.prepacked!.replace('written to', 'loaded from'))

    // Negate the largest tensor (float32: flip each sign bit), in place; put the time back.
    const fd = openSync(weights, 'r+')
    try {
      const bytes = Buffer.alloc(largest.length)
      readSync(fd, bytes, 0, largest.length, largest.offset)
      for (let i = 3; i < bytes.length; i += 4) bytes[i]! ^= 0x80
      writeSync(fd, bytes, 0, bytes.length, largest.offset)
    } finally {
      closeSync(fd)
    }
    utimesSync(weights, time, time)
    expect(statSync(weights).mtimeMs).toBe(time.getTime())

    const edited = await score(model, cache)
    const fresh = await score(model)
    expect(fresh.probabilities).not.toEqual(first.probabilities)
    expect(edited.prepacked).toMatch(/^written to /)
    expect(edited.prepacked).not.toBe(first.prepacked)
    expect(edited.probabilities).toEqual(fresh.probabilities)
  }, 120_000)
})
