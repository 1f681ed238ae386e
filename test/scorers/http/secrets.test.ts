import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evaluateWithScorer, recordsToJsonl, resultToJson, type Decision } from '../../../src/core/index.ts'
import { render } from '../../../src/report/index.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { startFakeOpenAI } from '../../helpers/fake-openai.ts'

// The key must reach the server and nothing else: not the manifest, JSON, records,
// the report, failure messages, warnings, or the scorer's own counters.
const KEY = 'sk-test-9f8e7d6c5b4a-do-not-leak'
const ENV = 'SCEPTIC_TEST_API_KEY'

let server: Awaited<ReturnType<typeof startFakeOpenAI>>
beforeAll(async () => {
  process.env[ENV] = KEY
  // Decisions about "Account" get a 401 whose body echoes the Authorization header,
  // as some proxies do: the one place a key could sneak into a message.
  server = await startFakeOpenAI((body) => (String(body.prompt).startsWith('Locked') ? { kind: 'echo-auth', status: 401 } : { kind: 'ok' }))
})
afterAll(async () => {
  delete process.env[ENV]
  await server.close()
})

const options = ['Billing', 'Technical support', 'Account and login'].map((text, i) => ({ id: ['billing', 'tech', 'account'][i]!, text }))
const decisions: Decision[] = [
  ['Charged twice, route to Billing', 'billing'],
  ['The app crashes: Technical support please', 'tech'],
  ['Locked out, Account and login', 'account'],
  ['Refund via Billing', 'billing'],
].map(([state, answer], i) => ({ id: `s${i}`, state: state!, criterion: { key: 'queue', question: 'Which queue?', options }, answer_id: answer! }))

describe('API keys never reach an artifact', () => {
  it('is sent as a bearer token, and absent from every artifact and message', async () => {
    const warnings: string[] = []
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', apiKeyEnv: ENV, retries: 0 })
    const result = await evaluateWithScorer(decisions, score, { debias: 'cyclic', onWarning: (m) => warnings.push(m), manifest: { baseURL: server.baseURL } })

    expect(server.received.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true)
    expect(result.n).toBe(3)
    expect(result.failed).toBe(1)
    expect(result.failures[0]).toMatchObject({ id: 's2', reason: 'http_error', message: expect.stringMatching(/^HTTP 401 .*invalid key: Bearer \[redacted\]/) })
    expect(result.manifest.scorer).toBe(`openai tiny completions at ${server.baseURL}/completions`)

    const artifacts = {
      json: JSON.stringify(resultToJson(result)),
      records: recordsToJsonl(result.records),
      report: render(result, { color: false }) + render(result, { color: true }),
      warnings: warnings.join('\n'),
      stats: JSON.stringify(score.stats()),
      description: score.description,
    }
    for (const [name, text] of Object.entries(artifacts)) expect(text.includes(KEY), `${name} holds the key`).toBe(false)
    // Prompts are in records only as a hash unless asked for.
    expect(artifacts.records).not.toContain('Charged twice')
    expect(result.records[0]!.promptHash).toMatch(/^[0-9a-f]{16}$/)
  })

  it('storePrompts keeps the prompt text in records', async () => {
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', apiKeyEnv: ENV })
    const result = await evaluateWithScorer(decisions.slice(0, 1), score, { storePrompts: true })
    expect(result.records[0]!.prompt).toBe('Charged twice, route to Billing\n\nWhich queue?\nA. Billing\nB. Technical support\nC. Account and login\nAnswer:')
  })

  it('a missing key variable is a ConfigError naming the variable, not a key', () => {
    expect(() => openAIScorer({ baseURL: server.baseURL, model: 'tiny', apiKeyEnv: 'SCEPTIC_NOT_SET' })).toThrow(/SCEPTIC_NOT_SET \(apiKeyEnv\) is not set/)
  })

  it('credentials in the base URL are stripped from the description', () => {
    const score = openAIScorer({ baseURL: 'http://user:hunter2@127.0.0.1:9/v1?token=abc', model: 'm' })
    expect(score.description).toBe('openai m completions at http://127.0.0.1:9/v1/completions')
  })
})
