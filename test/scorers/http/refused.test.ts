// A server that refuses connections (nothing listens) is down, not busy: the scorer fails
// each request on its first attempt instead of backing off, unless connectRetries asks to
// wait; with several endpoints a refused one fails over to a live one.
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { startFakeOpenAI } from '../../helpers/fake-openai.ts'

const TEXTS = ['Billing', 'Technical support']
const decisions = (n: number): Decision[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `Ticket ${i}: please route this to ${TEXTS[i % 2]}.`,
    criterion: { key: 'queue', options: TEXTS.map((text, j) => ({ id: `o${j}`, text })) },
    answer_id: `o${i % 2}`,
  }))

/** A 127.0.0.1 port nothing listens on: bound, read, closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

let servers: Awaited<ReturnType<typeof startFakeOpenAI>>[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

describe('connection refused', () => {
  it('fails each request at once by default: one attempt, no retries, and the message says what is wrong', async () => {
    const score = openAIScorer({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, model: 'm', backoffMs: 60_000 })
    // With the old retry-on-refused a 60 s back-off would hang here far past the test timeout.
    await expect(evaluateWithScorer(decisions(6), score, { debias: 'cyclic', statistics: false })).rejects.toThrow(
      /every decision failed to score \(error 6\); the first: POST \/v1\/completions failed: ECONNREFUSED \(nothing listens there: is the server running\?\)/,
    )
    expect(score.stats()).toMatchObject({ attempts: 12, retries: 0, failures: { error: 12 } })
  })

  it('connectRetries waits for a server that is still starting', async () => {
    const score = openAIScorer({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, model: 'm', backoffMs: 1, connectRetries: 2 })
    await expect(evaluateWithScorer(decisions(2), score, { debias: 'cyclic', statistics: false })).rejects.toThrow(/ECONNREFUSED/)
    expect(score.stats()).toMatchObject({ attempts: 12, retries: 8 })
    expect(() => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', connectRetries: -1 })).toThrow(ConfigError)
  })

  it('with several endpoints a refused one fails over to the live one', async () => {
    const live = await startFakeOpenAI()
    servers.push(live)
    const score = openAIScorer({ baseURL: [`http://127.0.0.1:${await closedPort()}/v1`, live.baseURL], model: 'tiny', backoffMs: 1 })
    const result = await evaluateWithScorer(decisions(8), score, { debias: 'cyclic', statistics: false })
    expect(result.n).toBe(8)
    expect(result.failed ?? 0).toBe(0)
  })
})
