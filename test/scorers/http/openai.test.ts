import { afterEach, describe, expect, it } from 'vitest'
import { isFlaggedScore, isScoreFailure, type ScoreOutcome, type ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import { openAIScorer, parseAnswerLetter, readLetters } from '../../../src/scorers/http/index.ts'
import { startFakeOpenAI, type Behaviour } from '../../helpers/fake-openai.ts'

type Server = Awaited<ReturnType<typeof startFakeOpenAI>>
let server: Server | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const OPTIONS = ['Billing', 'Technical support', 'Account and login'].map((text, i) => ({ id: `o${i}`, text }))
function request(state: string, order = [0, 1, 2], tag = ''): ScoreRequest {
  const criterion = { key: 'queue', question: 'Which queue?', options: order.map((i) => OPTIONS[i]!) }
  return { state: state + tag, criterion, prompt: buildPrompt(state + tag, criterion) }
}
const softmax = (scores: number[]) => {
  const e = scores.map(Math.exp)
  const z = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / z)
}
const vector = (outcome: ScoreOutcome) => {
  if (isScoreFailure(outcome) || isFlaggedScore(outcome)) throw new Error(`expected a vector, got ${JSON.stringify(outcome)}`)
  return outcome as number[]
}

describe('openAIScorer against a real HTTP server on 127.0.0.1', () => {
  it.each(['completions', 'chat'] as const)('%s: reads " X" and "X" tokens, renormalised over the request letters', async (api) => {
    server = await startFakeOpenAI()
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', api })
    const [a, b] = await score([request('Please send this to Billing.'), request('Please send this to Billing.', [2, 0, 1])])
    // Billing is in the state: score 3 at its slot, 0 elsewhere; the fake splits each letter 3:1 over two tokens.
    const expected = softmax([3, 0, 0])
    vector(a!).forEach((p, i) => expect(p).toBeCloseTo(expected[i]!, 12))
    const rotated = softmax([0, 3, 0])
    vector(b!).forEach((p, i) => expect(p).toBeCloseTo(rotated[i]!, 12))
    const sent = server.received[0]!
    expect(sent.path).toBe(api === 'chat' ? '/v1/chat/completions' : '/v1/completions')
    expect(sent.body).toMatchObject(api === 'chat' ? { max_tokens: 1, logprobs: true, top_logprobs: 20, temperature: 0 } : { max_tokens: 1, logprobs: 20, temperature: 0 })
  })

  it('keeps request order and never exceeds the concurrency limit', async () => {
    // Later requests answer sooner: completion order is the reverse of request order.
    server = await startFakeOpenAI((body, call) => ({ kind: 'delay', ms: 60 - (call % 10) * 5 }))
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', concurrency: 3 })
    const requests = Array.from({ length: 12 }, (_, i) => request(`Ticket ${i}: route to ${OPTIONS[i % 3]!.text}.`))
    const out = await score(requests)
    expect(server.maxInFlight).toBe(3)
    out.forEach((outcome, i) => expect(vector(outcome).indexOf(Math.max(...vector(outcome)))).toBe(i % 3))
  })

  it('a request that times out is retried, then counted as a timeout', async () => {
    // Margins are wide (a 2 s answer against a 500 ms limit): the machine is shared and noisy.
    server = await startFakeOpenAI((body) => (String(body.prompt).includes('slow') ? { kind: 'delay', ms: 2000 } : { kind: 'ok' }))
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', timeoutMs: 500, retries: 1, backoffMs: 1 })
    const out = await score([request('fine, Billing'), request('slow, Billing')])
    expect(vector(out[0]!)).toHaveLength(3)
    expect(out[1]).toMatchObject({ failure: 'timeout', message: expect.stringMatching(/POST \/v1\/completions took longer than 500 ms/) })
    expect(score.stats()).toMatchObject({ attempts: 3, retries: 1, failures: { timeout: 1 } })
  })

  it('429 and 5xx are retried with back-off (Retry-After honoured); a 400 is not', async () => {
    const plan: Behaviour[] = [
      { kind: 'status', status: 429, retryAfter: 0 },
      { kind: 'status', status: 503 },
      { kind: 'ok' },
    ]
    server = await startFakeOpenAI((_body, call) => plan[call] ?? { kind: 'ok' })
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', retries: 2, backoffMs: 1 })
    expect(vector((await score([request('Billing')]))[0]!)).toHaveLength(3)
    expect(score.stats()).toMatchObject({ attempts: 3, retries: 2, failures: {} })

    await server.close()
    server = await startFakeOpenAI(() => ({ kind: 'status', status: 400, body: 'bad request: unknown model' }))
    const strict = openAIScorer({ baseURL: server.baseURL, model: 'tiny', retries: 2, backoffMs: 1 })
    const [outcome] = await strict([request('Billing')])
    expect(outcome).toMatchObject({ failure: 'http_error', message: 'HTTP 400 from POST /v1/completions: bad request: unknown model' })
    expect(strict.stats().attempts).toBe(1)

    await server.close()
    server = await startFakeOpenAI(() => ({ kind: 'status', status: 500 }))
    const down = openAIScorer({ baseURL: server.baseURL, model: 'tiny', retries: 2, backoffMs: 1 })
    expect((await down([request('Billing')]))[0]).toMatchObject({ failure: 'http_error', message: expect.stringMatching(/^HTTP 500/) })
    expect(down.stats()).toMatchObject({ attempts: 3, failures: { http_error: 1 } })
  })

  it('every failure bucket is reachable', async () => {
    server = await startFakeOpenAI((body) => {
      const p = String(body.prompt)
      if (p.includes('malformed')) return { kind: 'malformed' }
      if (p.includes('nologprobs')) return { kind: 'no-logprobs' }
      if (p.includes('noletters')) return { kind: 'only-letters', letters: [] }
      if (p.includes('teapot')) return { kind: 'status', status: 418 }
      if (p.includes('slow')) return { kind: 'delay', ms: 2000 }
      return { kind: 'ok' }
    })
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', timeoutMs: 500, retries: 0 })
    const out = await score(['malformed', 'nologprobs', 'noletters', 'teapot', 'slow'].map((tag) => request('Billing ', undefined, tag)))
    expect(out.map((o) => (isScoreFailure(o) ? o.failure : 'ok'))).toEqual(['parse_failure', 'no_logprobs', 'parse_failure', 'http_error', 'timeout'])
    // Nothing listening: a network error, retried, then the generic bucket.
    const port = new URL(server.baseURL).port
    await server.close()
    server = undefined
    const gone = openAIScorer({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'tiny', retries: 1, backoffMs: 1 })
    expect((await gone([request('Billing')]))[0]).toMatchObject({ failure: 'error', message: expect.stringMatching(/ECONNREFUSED/) })
  })

  it('letters missing from the top log-probs get a floor and a missing_logprobs flag', async () => {
    server = await startFakeOpenAI(() => ({ kind: 'only-letters', letters: ['A', 'B'] }))
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny' })
    const [outcome] = await score([request('Billing')])
    expect(isFlaggedScore(outcome)).toBe(true)
    const flagged = outcome as { probabilities: number[]; flags: string[] }
    expect(flagged.flags).toEqual(['missing_logprobs'])
    expect(flagged.probabilities[2]).toBeGreaterThan(0)
    expect(flagged.probabilities[2]).toBeLessThan(flagged.probabilities[1]!)
    expect(score.stats().missingLogprobs).toBe(1)
  })

  it('generate mode reads the answer letter from sampled text as a one-hot vector', async () => {
    server = await startFakeOpenAI((body) => ({ kind: 'text', text: String(body.prompt ?? body.messages?.[0]?.content).includes('odd') ? 'I think so' : ' (B) because' }))
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', mode: 'generate', temperature: 0.7, maxTokens: 5 })
    const out = await score([request('Billing'), request('odd')])
    expect(out[0]).toEqual([0, 1, 0])
    expect(out[1]).toMatchObject({ failure: 'parse_failure', message: expect.stringMatching(/no answer letter in "I think so"/) })
    expect(server.received[0]!.body).toMatchObject({ max_tokens: 5, temperature: 0.7 })
    expect(server.received[0]!.body.logprobs).toBeUndefined()
  })
})

describe('letter parsing', () => {
  it('sums " A" and "A", ignores other tokens, returns null when no letter is present', () => {
    const read = readLetters([{ token: ' A', logprob: Math.log(0.3) }, { token: 'A', logprob: Math.log(0.1) }, { token: ' B', logprob: Math.log(0.4) }, { token: ' AB', logprob: Math.log(0.2) }], 2)
    expect(read!.probabilities[0]).toBeCloseTo(0.5, 12)
    expect(read!.missing).toEqual([])
    expect(readLetters([{ token: ' the', logprob: -1 }], 3)).toBeNull()
  })
  it.each([
    ['B', 1],
    [' C.', 2],
    ['(A) yes', 0],
    ['Answer: B', 1],
    ['D', null], // not among 3 options
    ['Because', null],
    ['b', null],
  ])('%j → %s', (text, expected) => expect(parseAnswerLetter(text, 3)).toBe(expected))
})
