// "Never stale": one changed byte of anything that decides a vector is a miss.
import { appendFileSync, cpSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cachedScorer } from '../../src/cache/cached-scorer.ts'
import type { CacheIdentity } from '../../src/cache/key.ts'
import { requestKey, scorerId } from '../../src/cache/key.ts'
import { CacheStore } from '../../src/cache/store.ts'
import { buildPrompt, evaluateWithScorer, type ScoreRequest } from '../../src/core/index.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { onnxScorer } from '../../src/scorers/onnx/scorer.ts'
import { ROOT } from '../helpers/run.ts'
import { decision } from '../helpers/decisions.ts'
import { useTempDirs } from '../helpers/temp.ts'

const temp = useTempDirs('sceptic-stale-', { after: 'each' })

const decisions = Array.from({ length: 6 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: `Evidence ${i}.` }))

/** Score `decisions` through a cache in `dir` with `identity`; returns how many requests reached the scorer. */
async function misses(dir: string, identity: CacheIdentity, template?: (state: string, criterion: ScoreRequest['criterion']) => string): Promise<number> {
  let called = 0
  const inner = (requests: readonly ScoreRequest[]) => {
    called += requests.length
    return requests.map((r) => r.criterion.options.map((o, slot) => 1 + slot + o.id.length))
  }
  const store = new CacheStore(dir)
  try {
    await evaluateWithScorer(decisions, cachedScorer(inner, { identity, store }), { debias: 'cyclic', statistics: false, ...(template ? { template } : {}) })
  } finally {
    await store.close()
  }
  return called
}

/** A copy of the fixture model with a tokenizer_config.json and external data, as real exports have. */
function modelCopy(): string {
  const dir = temp()
  cpSync(join(ROOT, 'examples/models/tiny'), dir, { recursive: true })
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: '{{ messages }}' }))
  writeFileSync(join(dir, 'model.onnx_data'), Buffer.alloc(64, 7))
  return dir
}

function flipByte(path: string, keepTimes = false): void {
  const before = statSync(path)
  const bytes = readFileSync(path)
  bytes[bytes.length >> 1]! ^= 0x01
  writeFileSync(path, bytes)
  if (keepTimes) utimesSync(path, before.atime, before.mtime)
}

describe('the score cache never serves a vector for a different question', () => {
  it('one flipped byte of the model, its external data, tokenizer.json or tokenizer_config.json misses every request', async () => {
    for (const file of ['model.onnx', 'model.onnx_data', 'tokenizer.json', 'tokenizer_config.json']) {
      const model = modelCopy()
      const cache = temp()
      const identity = () => onnxScorer({ model }).cacheIdentity!
      expect(await misses(cache, identity())).toBe(18)
      expect(await misses(cache, identity())).toBe(0)
      // mtime restored too: the digest memo also keys on ctime, which no tool sets back.
      flipByte(join(model, file), true)
      expect(await misses(cache, identity()), file).toBe(18)
    }
  })

  it('a tokenizer_config.json appearing, or the optimized readout sidecar appearing, misses', async () => {
    const model = modelCopy()
    rmSync(join(model, 'tokenizer_config.json'))
    const cache = temp()
    expect(await misses(cache, onnxScorer({ model }).cacheIdentity!)).toBe(18)
    writeFileSync(join(model, 'tokenizer_config.json'), '{}')
    expect(await misses(cache, onnxScorer({ model }).cacheIdentity!)).toBe(18)
    writeFileSync(join(model, 'sceptic-readout.json'), JSON.stringify({ format: 'sceptic-readout/1', letterIds: [1, 2, 3], vocab: 100, positions: 'last', source: 'model.onnx' }))
    expect(await misses(cache, onnxScorer({ model }).cacheIdentity!)).toBe(18)
  })

  it('a large model is hashed once: the memo beside the cache serves its digest until the file changes', async () => {
    const model = modelCopy()
    const cache = temp()
    const identity = onnxScorer({ model }).cacheIdentity!
    const first = await scorerId(identity, cache)
    // Poison the memo's digest: if the memo is read (stat unchanged) the id changes, proving no re-hash.
    const memos = (await import('node:fs')).readdirSync(join(cache, 'digests'))
    expect(memos.length).toBe(4) // model, external data, tokenizer, tokenizer_config (no readout file: absent, not memoised)
    for (const name of memos) {
      const path = join(cache, 'digests', name)
      const memo = JSON.parse(readFileSync(path, 'utf8'))
      writeFileSync(path, JSON.stringify({ ...memo, sha256: 'f'.repeat(64) }))
    }
    expect(await scorerId(identity, cache)).not.toBe(first)
    // Without the memo directory the id is computed from the bytes again.
    expect(await scorerId(identity, undefined)).toBe(first)
    appendFileSync(join(model, 'model.onnx_data'), 'x')
    expect(await scorerId(identity, undefined)).not.toBe(first)
  })

  it('turning the chat template on, changing its system message, its kwargs or a custom template misses every request', async () => {
    const model = modelCopy()
    const cache = temp()
    const variants = [{}, { chatTemplate: true }, { chatTemplate: true, system: 'a' }, { chatTemplate: true, system: 'b' }, { chatTemplate: true, system: 'b', chatTemplateKwargs: { x: 1 } }, { chatTemplate: '{{ messages }}' }]
    for (const options of variants) expect(await misses(cache, onnxScorer({ model, ...options }).cacheIdentity!), JSON.stringify(options)).toBe(18)
    for (const options of variants) expect(await misses(cache, onnxScorer({ model, ...options }).cacheIdentity!), JSON.stringify(options)).toBe(0)
  })

  it('a custom ONNX template has no identity: such a scorer is never cached', () => {
    const model = modelCopy()
    expect(onnxScorer({ model, template: (s) => s }).cacheIdentity).toBeUndefined()
  })

  it('a changed prompt template, state, option text, option count, letter set or epoch is a different key', () => {
    const base = decisions[0]!
    const request = (overrides: Partial<ScoreRequest> = {}): ScoreRequest => ({
      state: base.state,
      criterion: base.criterion,
      prompt: buildPrompt(base.state, base.criterion),
      ...overrides,
    })
    const key = (r: ScoreRequest) => requestKey('00'.repeat(16), r)
    const variants: ScoreRequest[] = [
      request({ prompt: buildPrompt(base.state, base.criterion) + ' ' }),
      request({ state: base.state + '!' }),
      request({ criterion: { ...base.criterion, options: base.criterion.options.map((o, i) => (i === 1 ? { ...o, text: o.text + 'x' } : o)) } }),
      request({ criterion: { ...base.criterion, options: base.criterion.options.slice(0, 2) } }),
      request({ epoch: 1 }),
    ]
    const keys = new Set([key(request()), ...variants.map(key)])
    expect(keys.size).toBe(variants.length + 1)
    expect(key(request({ epoch: 0 }))).toBe(key(request()))
    expect(requestKey('01'.repeat(16), request())).not.toBe(key(request()))
  })

  it('the evaluator\'s prompt template changing misses every request', async () => {
    const cache = temp()
    const identity: CacheIdentity = { kind: 'user', label: 'test', settings: { cacheKey: 'v1' } }
    expect(await misses(cache, identity)).toBe(18)
    expect(await misses(cache, identity, (state, criterion) => buildPrompt(state, criterion).replace('Answer:', 'Answer with a letter:'))).toBe(18)
    expect(await misses(cache, identity)).toBe(0)
  })

  it('an HTTP scorer\'s identity changes with every sampling parameter, the model, the mode and the endpoint, and never holds the API key', async () => {
    process.env.SCEPTIC_TEST_KEY = 'sk-secret-123456'
    try {
      const base = { baseURL: 'http://user:pw@127.0.0.1:9/v1?key=q', model: 'm', mode: 'generate' as const, temperature: 0.7, maxTokens: 8, apiKeyEnv: 'SCEPTIC_TEST_KEY' }
      const id = (options: Partial<Parameters<typeof openAIScorer>[0]>) => scorerId(openAIScorer({ ...base, ...options }).cacheIdentity, undefined)
      const reference = await id({})
      for (const change of [{ temperature: 0.8 }, { maxTokens: 9 }, { model: 'n' }, { mode: 'logprobs' as const }, { baseURL: 'http://127.0.0.1:10/v1' }, { api: 'chat' as const }])
        expect(await id(change), JSON.stringify(change)).not.toBe(reference)
      // Credentials, the query and the key's name are not part of what is scored.
      expect(await id({ baseURL: 'http://127.0.0.1:9/v1', apiKeyEnv: undefined })).toBe(reference)
      const identity = JSON.stringify(openAIScorer(base).cacheIdentity)
      for (const secret of ['sk-secret', 'pw', 'key=q']) expect(identity).not.toContain(secret)
    } finally {
      delete process.env.SCEPTIC_TEST_KEY
    }
  })
})
