import { createOpenAI } from '@ai-sdk/openai'
import { afterEach, describe, expect, it } from 'vitest'
import { decisionModelScorer } from '../../../src/scorers/ai/index.ts'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import type { ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { biased, reader, refusing, startFakeDecisions, tiedSecond } from '../../helpers/fake-decisions.mjs'

const KEY = 'sk-test-0123456789abcdefghijklmnopqrstuvwxyz'
const servers: { close(): Promise<void> }[] = []
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close()
})

async function serve(options: Parameters<typeof startFakeDecisions>[0] = {}) {
  const server = await startFakeDecisions(options)
  servers.push(server)
  const openai = createOpenAI({ baseURL: server.baseURL, apiKey: KEY })
  return { server, model: openai.decisionModel('gpt-6-luna') }
}

const TEXTS = ['Billing and refunds', 'Technical support', 'Account access', 'Shipping']

/** `n` decisions over `ids` whose state names the gold option's text (what `reader` reads). */
function decisions(n: number, ids: readonly string[] = ['billing', 'tech', 'account']): Decision[] {
  return Array.from({ length: n }, (_, d) => ({
    id: `d${d}`,
    state: `Ticket ${d}: this is about ${TEXTS[d % ids.length]}.`,
    criterion: { key: 'queue', question: 'Which queue?', options: ids.map((id, i) => ({ id, text: TEXTS[i]! })) },
    answer_id: ids[d % ids.length]!,
  }))
}

function request(ids: readonly string[], state = 'Ticket: Technical support'): ScoreRequest {
  return { state, criterion: { key: 'queue', question: 'Which queue?', options: ids.map((id, i) => ({ id, text: TEXTS[i]! })) }, prompt: '' }
}

/** The option values each question was shown, in the order shown. */
const shown = (server: { received: { body: any }[] }) => server.received.flatMap(({ body }) => body.questions.map((q: any) => q.choices.map((c: any) => c.value)))

describe('decisionModelScorer over the OpenAI Decisions wire format', () => {
  it('sends one choice question per request: state, instructions, choices in the order presented', async () => {
    const { server, model } = await serve()
    const score = decisionModelScorer(model)
    await score([request(['tech', 'billing', 'account'])])
    const { body, path, headers } = server.received[0]!
    expect(path).toBe('/v1/decisions')
    expect(headers.authorization).toBe(`Bearer ${KEY}`)
    expect(body.model).toBe('gpt-6-luna')
    expect(body.input[0].content).toEqual([{ type: 'input_text', text: 'Ticket: Technical support' }])
    expect(body.questions).toEqual([
      {
        type: 'choice',
        name: 'queue',
        instructions: 'Which queue?',
        choices: [
          { value: 'tech', description: 'Billing and refunds' },
          { value: 'billing', description: 'Technical support' },
          { value: 'account', description: 'Account access' },
        ],
      },
    ])
  })

  it('a question-less criterion sends null instructions', async () => {
    const { server, model } = await serve()
    const r = request(['a', 'b'])
    await decisionModelScorer(model)([{ ...r, criterion: { key: 'k', options: r.criterion.options } }])
    expect(server.received[0]!.body.questions[0].instructions).toBeNull()
  })

  it('a position-biased model has order consistency 0 under cyclic debias, and every pick on letter A', async () => {
    const { server, model } = await serve({ decide: biased(0.7) })
    const result = await evaluateWithScorer(decisions(6), decisionModelScorer(model), { debias: 'cyclic', statistics: false })
    expect(result.orderConsistency).toBe(0)
    expect(result.letterDistribution.A).toBe(1)
    expect(result.manifest.orderingsScored).toBe(3)
    expect(result.manifest.forwardPasses).toBe(18)
    // The server saw each decision's three rotations, as requested.
    const orders = shown(server).map((ids: string[]) => ids.join(','))
    expect(new Set(orders)).toEqual(new Set(['billing,tech,account', 'tech,account,billing', 'account,billing,tech']))
    // Records' probabilities: the mean of the model's (rounded) distributions, renormalised.
    for (const record of result.records) expect(Object.values(record.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    expect(result.records[0]!.probabilities.billing).toBeCloseTo((0.7 + 0.15 + 0.15) / 3, 12)
  })

  it('integer-like option ids are presented in the order requested (aliased), not sorted by the object', async () => {
    const { server, model } = await serve({ decide: biased(0.7) })
    const ids = ['3', '1', '2']
    const result = await evaluateWithScorer(decisions(6, ids), decisionModelScorer(model), { debias: 'cyclic', statistics: false })
    // A naive `{ "3": …, "1": …, "2": … }` lists "1","2","3" under every rotation: consistency 1.
    expect(result.orderConsistency).toBe(0)
    const orders = new Set(shown(server).map((values: string[]) => values.join(',')))
    expect(orders).toEqual(new Set(['option_3,option_1,option_2', 'option_1,option_2,option_3', 'option_2,option_3,option_1']))
    expect(result.records[0]!.picks).toEqual(['3', '1', '2'])
  })

  it('prototype-named option ids reach the model as options, in order', async () => {
    const { server, model } = await serve({ decide: biased(0.7) })
    const [outcome] = await decisionModelScorer(model)([request(['__proto__', 'constructor', 'b'])])
    expect(shown(server)).toEqual([['__proto__', 'constructor', 'b']])
    expect(outcome).toEqual([0.7, 0.15, 0.15])
  })

  it('a reader model scores every decision right under every ordering, numeric ids too', async () => {
    const { model } = await serve({ decide: reader() })
    for (const ids of [undefined, ['10', '2', '0']]) {
      const result = await evaluateWithScorer(decisions(6, ids), decisionModelScorer(model), { debias: 'permutation', statistics: false })
      expect(result.accuracy).toBe(1)
      expect(result.orderConsistency).toBe(1)
    }
  })

  it('an alias that clashes with another option id is a one-line ConfigError naming the ids, before any call', async () => {
    const { server, model } = await serve()
    const score = decisionModelScorer(model)
    const error = await Promise.resolve(score([request(['1', 'option_1'])])).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain('"1", "option_1"')
    expect((error as Error).message).not.toContain('\n')
    expect(server.calls).toBe(0)
  })

  it("the pick is the model's own choice: a tie chosen on the second slot stays the second slot", async () => {
    const { model } = await serve({ decide: tiedSecond() })
    const [outcome] = await decisionModelScorer(model)([request(['a', 'b', 'c'])])
    expect(outcome).toEqual({ probabilities: [0.5, 0.5, 0], pick: 1, flags: [] })
  })

  it('refusals are counted in the refusal bucket', async () => {
    const { model } = await serve({ decide: (q: any, state: string) => (state.startsWith('Ticket 0:') ? 'refusal' : biased()(q)) })
    const result = await evaluateWithScorer(decisions(3), decisionModelScorer(model), { debias: 'cyclic', statistics: false })
    expect(result.manifest.failedByReason).toEqual({ refusal: 1 })
    expect(result.n).toBe(2)
    const all = await serve({ decide: refusing() })
    await expect(evaluateWithScorer(decisions(3), decisionModelScorer(all.model), { statistics: false })).rejects.toThrow(/refusal 3/)
  })

  it('HTTP errors after the SDK retries are http_error; 4xx are not retried', async () => {
    const { server, model } = await serve({ behave: () => ({ status: 503 }) })
    const [outcome] = await decisionModelScorer(model, { maxRetries: 1 })([request(['a', 'b'])])
    expect(outcome).toMatchObject({ failure: 'http_error' })
    expect((outcome as { message: string }).message).toMatch(/HTTP 503 \(after 2 attempts\)/)
    expect(server.calls).toBe(2)
    const bad = await serve({ behave: () => ({ status: 400, body: JSON.stringify({ error: { message: 'bad request' } }) }) })
    const [four] = await decisionModelScorer(bad.model, { maxRetries: 3 })([request(['a', 'b'])])
    expect(four).toMatchObject({ failure: 'http_error' })
    expect(bad.server.calls).toBe(1)
  })

  it('an answer that does not fit the question is a parse_failure', async () => {
    const { model } = await serve({ behave: () => ({ malformed: true }) })
    const [outcome] = await decisionModelScorer(model, { maxRetries: 0 })([request(['a', 'b'])])
    expect(outcome).toMatchObject({ failure: 'parse_failure' })
  })

  it('a slow server is a timeout; a closed port a network error', async () => {
    const { model } = await serve({ behave: () => ({ delay: 2_000 }) })
    const started = Date.now()
    const [outcome] = await decisionModelScorer(model, { timeoutMs: 150, maxRetries: 0 })([request(['a', 'b'])])
    expect(outcome).toMatchObject({ failure: 'timeout' })
    expect(Date.now() - started).toBeLessThan(1_500)
    const closed = await startFakeDecisions()
    await closed.close()
    const gone = createOpenAI({ baseURL: closed.baseURL, apiKey: KEY }).decisionModel('gpt-6-luna')
    const [network] = await decisionModelScorer(gone, { maxRetries: 0 })([request(['a', 'b'])])
    expect(network).toMatchObject({ failure: 'error' })
  })

  it('a server that echoes the key leaks no piece of it and no Bearer token', async () => {
    const { model } = await serve({ behave: () => ({ echoKey: true }) })
    const result = await evaluateWithScorer([...decisions(2), ...decisions(1)], decisionModelScorer(model, { maxRetries: 0 }), { debias: 'none', statistics: false }).catch(
      (e: unknown) => e,
    )
    const outcomes = await decisionModelScorer(model, { maxRetries: 0 })([request(['a', 'b'])])
    const text = JSON.stringify(outcomes) + String(result instanceof Error ? result.message : JSON.stringify(result))
    expect(outcomes[0]).toMatchObject({ failure: 'http_error' })
    expect(text).toContain('[redacted]')
    expect(text).not.toMatch(/Bearer\s+(?!\[redacted\])/)
    for (let i = 0; i + 6 <= KEY.length; i++) expect(text).not.toContain(KEY.slice(i, i + 6))
  })

  it('every debias mode asks what it should: one question per request, calibrated ones on "N/A"', async () => {
    for (const debias of ['none', 'cyclic', 'permutation', 'calibrated', 'pride'] as const) {
      const { server, model } = await serve({ decide: reader() })
      const result = await evaluateWithScorer(decisions(6), decisionModelScorer(model), { debias, statistics: false })
      expect(result.manifest.forwardPasses, debias).toBe(server.calls)
      expect(result.accuracy, debias).toBe(1)
      const states = server.received.map(({ body }) => body.input[0].content[0].text)
      expect(states.includes('N/A'), debias).toBe(debias === 'calibrated')
      expect(result.orderConsistency, debias).toBe(debias === 'none' ? null : 1)
    }
  })

  it("batch: 'state' asks a decision's orderings in one call and scores the same", async () => {
    const one = await serve({ decide: biased(0.6) })
    const many = await serve({ decide: biased(0.6) })
    const data = decisions(5)
    const plain = await evaluateWithScorer(data, decisionModelScorer(one.model), { debias: 'cyclic', statistics: false })
    const batched = await evaluateWithScorer(data, decisionModelScorer(many.model, { batch: 'state' }), { debias: 'cyclic', statistics: false })
    expect(one.server.calls).toBe(15)
    expect(many.server.calls).toBe(5)
    expect(many.server.received[0]!.body.questions.map((q: any) => q.name)).toEqual(['queue', 'queue_2', 'queue_3'])
    expect(batched.records).toEqual(plain.records)
    expect(batched.orderConsistency).toBe(0)
  })

  it("a refusal inside a batch fails only the refused question; the others are asked again alone", async () => {
    const { server, model } = await serve({ decide: (q: any, state: string, body: any) => (body.questions.length > 1 && q.name === 'queue_2' ? 'refusal' : biased()(q)) })
    const out = await decisionModelScorer(model, { batch: 'state' })([request(['a', 'b']), request(['b', 'a']), request(['a', 'b'])])
    expect(out.map((o) => ('failure' in o ? o.failure : 'ok'))).toEqual(['ok', 'refusal', 'ok'])
    expect(server.calls).toBe(3)
  })

  it('concurrency bounds the calls in flight (default 8)', async () => {
    for (const [concurrency, expected] of [[undefined, 8], [3, 3]] as const) {
      const { server, model } = await serve({ behave: () => ({ delay: 30 }) })
      await decisionModelScorer(model, concurrency ? { concurrency } : {})(Array.from({ length: 20 }, (_, i) => request(['a', 'b'], `s${i}`)))
      expect(server.maxInFlight).toBe(expected)
    }
  })

  it("the run's AbortSignal cancels the calls in flight", async () => {
    const { model } = await serve({ behave: () => ({ delay: 5_000 }) })
    const controller = new AbortController()
    const started = Date.now()
    setTimeout(() => controller.abort(new Error('run cancelled')), 100)
    await expect(decisionModelScorer(model)([request(['a', 'b'])], { signal: controller.signal })).rejects.toThrow('run cancelled')
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('counts calls, questions and token usage for the manifest', async () => {
    const { model } = await serve()
    const score = decisionModelScorer(model, { batch: 'state' })
    await score([request(['a', 'b']), request(['b', 'a'])])
    const { decide } = score.manifestEntries()
    expect(decide).toMatchObject({ provider: 'openai.decision', model: 'gpt-6-luna', batch: 'state', calls: 1, questions: 2, outputTokens: 12, usageUnknown: 0 })
    expect(decide.inputTokens).toBeGreaterThan(0)
    expect(score.description).toBe('decide openai.decision gpt-6-luna')
    expect(JSON.stringify([score.cacheIdentity, decide])).not.toContain(KEY.slice(3, 12))
  })

  it('refuses, before any call, a model that is not a decision model or does not answer choice questions', async () => {
    const { server } = await serve()
    const openai = createOpenAI({ baseURL: server.baseURL, apiKey: KEY })
    expect(() => decisionModelScorer(openai.chat('gpt-4o') as never)).toThrow(ConfigError)
    expect(() => decisionModelScorer('gpt-6-luna' as never)).toThrow(/decisionModel\("gpt-6-luna"\)/)
    const booleanOnly = { ...openai.decisionModel('x'), specificationVersion: 'v4', provider: 'p', modelId: 'm', supportedQuestionTypes: ['boolean'], doDecide: async () => ({}) }
    expect(() => decisionModelScorer(booleanOnly as never)).toThrow(/does not answer choice questions \(it supports boolean\)/)
    expect(server.calls).toBe(0)
  })
})
