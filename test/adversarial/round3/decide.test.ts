// Decision models, round 3: secrets, time limits, cache identity and listeners.
// - A server's masked echo of a key ("sk-ab...xyz9") leaves no run of 4+ key characters in
//   any artifact (failure messages, result JSON, terminal and HTML reports).
// - Credentials in any URL are stripped, for decision models too.
// - `timeoutMs` ends a call even when the model ignores its abort signal.
// - The cache identity holds everything that decides the answer (endpoint, headers).
// - No MaxListenersExceededWarning at any concurrency.
import { createOpenAI } from '@ai-sdk/openai'
import { Experimental_DecisionMockModelV4 } from 'ai/test'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { evaluateWithScorer, resultToJson, type Decision } from '../../../src/core/index.ts'
import type { ScoreFailure, ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { render, renderHtmlReport } from '../../../src/report/index.ts'
import { decisionModelScorer } from '../../../src/scorers/ai/index.ts'
import { secretScrubber } from '../../../src/scorers/http/scrub.ts'
import { startFakeDecisions } from '../../helpers/fake-decisions.mjs'

const servers: { close(): Promise<void> }[] = []
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close()
})

/** The first run of 4 characters of `key` found in `text`, or undefined. */
function leak(text: string, key: string): string | undefined {
  for (let i = 0; i + 4 <= key.length; i++) if (text.includes(key.slice(i, i + 4))) return key.slice(i, i + 4)
  return undefined
}

const KEY_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')
/** API keys as providers issue them: a prefix and 24–48 random characters. */
const keys = fc
  .tuple(fc.constantFrom('sk-', 'sk-proj-', 'sk-ant-', ''), fc.array(fc.constantFrom(...KEY_CHARS), { minLength: 24, maxLength: 48 }))
  .map(([prefix, chars]) => prefix + chars.join(''))

/** The ways servers and proxies echo a key masked. */
const MASKS: ((key: string) => string)[] = [
  (key) => `${key.slice(0, 5)}...${key.slice(-4)}`,
  (key) => `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`,
  (key) => `...${key.slice(-4)}`,
  (key) => `${key.slice(0, 4)}…${key.slice(-5)}`,
  (key) => `key ending in ${key.slice(-6)}`,
  (key) => `Bearer ${key.slice(0, 8)}xxxx`,
]

const TEXTS = ['Billing and refunds', 'Technical support']
function decisions(n: number): Decision[] {
  return Array.from({ length: n }, (_, d) => ({
    id: `d${d}`,
    state: `Ticket ${d}: ${TEXTS[d % 2]}`,
    criterion: { key: 'queue', question: 'Which queue?', options: [{ id: 'billing', text: TEXTS[0]! }, { id: 'tech', text: TEXTS[1]! }] },
    answer_id: d % 2 === 0 ? 'billing' : 'tech',
  }))
}
const request = (state = 'Ticket: Technical support'): ScoreRequest => ({ state, criterion: decisions(1)[0]!.criterion, prompt: '' })

describe('a masked echo of a key leaves no run of 4 key characters', () => {
  it('property: the scrubber, over random keys and every mask, in any message', () => {
    fc.assert(
      fc.property(keys, fc.constantFrom(...MASKS), fc.string({ maxLength: 40 }), (key, mask, around) => {
        const text = `${around} Incorrect API key provided: ${mask(key)}. ${around}`
        const scrubber = secretScrubber([key])
        expect(leak(scrubber.scrub(text), key)).toBeUndefined()
        expect(leak(scrubber.clip(text, 60), key)).toBeUndefined()
      }),
      { numRuns: 300 },
    )
  })

  it.each(MASKS.map((mask, i) => [i, mask] as const))('a decision model whose server echoes the key masked (mask %i): nothing in the failure, the JSON or the reports', async (_, mask) => {
    const key = 'sk-proj-Zq8RvT2mWx7LpK4nYb9HcJ3dFg6S'
    const server = await startFakeDecisions({
      behave: (_body: unknown, call: number) =>
        call % 2 === 0 ? { status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${mask(key)}`, type: 'invalid_request_error' } }) } : {},
    })
    servers.push(server)
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: key }).decisionModel('gpt-6-luna')
    const scorer = decisionModelScorer(model, { maxRetries: 0, concurrency: 1 })
    const result = await evaluateWithScorer(decisions(4), scorer, { debias: 'none' })
    const artifacts = [JSON.stringify(resultToJson(result)), render(result), renderHtmlReport({ result, records: result.records, label: 'x' }), JSON.stringify(scorer.stats())]
    expect(JSON.stringify(resultToJson(result))).toMatch(/HTTP 401/)
    for (const text of artifacts) expect(leak(text, key)).toBeUndefined()
  })
})

describe('credentials in a URL are stripped for decision models too', () => {
  const USER = 'alice-account'
  const PASSWORD = 'pw-9f8e7d6c5b4a'
  const QUERY_KEY = 'qk-1a2b3c4d5e6f7g'

  it('a baseURL with user:password and ?key=: no part of them in the failure message or the cache identity', async () => {
    const server = await startFakeDecisions()
    servers.push(server)
    const url = new URL(server.baseURL)
    const baseURL = `http://${USER}:${PASSWORD}@${url.host}${url.pathname}?key=${QUERY_KEY}`
    const model = createOpenAI({ baseURL, apiKey: 'sk-test-0123456789abcdefghijklmnop' }).decisionModel('gpt-6-luna')
    const scorer = decisionModelScorer(model, { maxRetries: 0 })
    const [outcome] = await scorer([request()])
    const texts = [JSON.stringify(outcome), JSON.stringify(scorer.cacheIdentity), scorer.description, JSON.stringify(scorer.stats())]
    for (const text of texts) for (const secret of [PASSWORD, QUERY_KEY]) expect(leak(text, secret), text).toBeUndefined()
    expect(JSON.stringify(outcome)).not.toContain(`${USER}:`)
  })

  it('property: any URL with credentials in any message is stripped of them', () => {
    const word = fc.array(fc.constantFrom(...KEY_CHARS), { minLength: 3, maxLength: 20 }).map((c) => c.join(''))
    fc.assert(
      fc.property(fc.constantFrom('http', 'https', 'ws', 'postgres'), word, word, fc.string({ maxLength: 30 }), (scheme, user, password, around) => {
        const text = `${around} fetch failed: ${scheme}://${user}:${password}@example.test/v1/decide ${around}`
        const out = secretScrubber([]).scrub(text)
        expect(out).not.toContain(`${user}:${password}@`)
        expect(out).toContain(`${scheme}://[redacted]@example.test`)
      }),
    )
  })
})

describe('timeoutMs ends a call even when the model ignores its signal', () => {
  it('a model that never answers and never looks at abortSignal: a timeout failure after timeoutMs, not a hang', async () => {
    const deaf = new Experimental_DecisionMockModelV4({ provider: 'mock.decision', modelId: 'deaf', doDecide: () => new Promise(() => {}) })
    const scorer = decisionModelScorer(deaf, { timeoutMs: 150, maxRetries: 0 })
    const started = performance.now()
    const outcomes = await scorer([request(), request('Ticket: Billing and refunds')])
    expect(performance.now() - started).toBeLessThan(3000)
    expect(outcomes.map((o) => (o as ScoreFailure).failure)).toEqual(['timeout', 'timeout'])
  }, 6000)

  it('the run signal still ends a deaf call at once (aborted, not a timeout)', async () => {
    const deaf = new Experimental_DecisionMockModelV4({ provider: 'mock.decision', modelId: 'deaf', doDecide: () => new Promise(() => {}) })
    const scorer = decisionModelScorer(deaf, { timeoutMs: 60_000 })
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('run stopped')), 100)
    await expect(scorer([request()], { signal: controller.signal })).rejects.toThrow('run stopped')
  }, 6000)
})

describe('the cache identity of a decision model holds what decides the answer', () => {
  const identity = (baseURL: string, headers?: Record<string, string>) =>
    JSON.stringify(decisionModelScorer(createOpenAI({ baseURL, apiKey: 'sk-test-0123456789abcdefghij' }).decisionModel('m'), headers ? { headers } : {}).cacheIdentity)

  it.each([
    ['another host', 'http://a.test/v1', 'http://b.test/v1'],
    ['another path', 'http://a.test/v1', 'http://a.test/v2'],
    ['another query (api-version)', 'http://a.test/v1?api-version=1', 'http://a.test/v1?api-version=2'],
  ])('%s gives another identity', (_, a, b) => {
    expect(identity(a)).not.toBe(identity(b))
    expect(identity(a)).toBe(identity(a))
  })

  it('other headers give another identity; the identity shows no header value', () => {
    expect(identity('http://a.test/v1', { 'x-route': 'eu-secret-route' })).not.toBe(identity('http://a.test/v1', { 'x-route': 'us' }))
    expect(identity('http://a.test/v1', { 'x-route': 'eu-secret-route' })).not.toContain('eu-secret-route')
  })
})

describe('no MaxListenersExceededWarning at any concurrency', () => {
  it.each([1, 11, 32, 100])('concurrency %i with a run signal', async (concurrency) => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on('warning', onWarning)
    try {
      const model = new Experimental_DecisionMockModelV4({
        provider: 'mock.decision',
        modelId: 'slow',
        doDecide: async ({ questions }) => {
          await new Promise((resolve) => setTimeout(resolve, 5))
          return { answers: Object.fromEntries(Object.entries(questions).map(([name, q]) => [name, { type: 'choice' as const, choice: Object.keys((q as { criteria: object }).criteria)[0]! }])), warnings: [] }
        },
      })
      const scorer = decisionModelScorer(model, { concurrency })
      const controller = new AbortController()
      const outcomes = await scorer(Array.from({ length: 120 }, (_, i) => request(`Ticket ${i}`)), { signal: controller.signal })
      expect(outcomes).toHaveLength(120)
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})
