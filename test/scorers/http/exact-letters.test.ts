import { afterEach, describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import { isFlaggedScore, isScoreFailure, type ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { withScorerManifest } from '../../../src/core/scorer/live-manifest.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { LETTER_ID, startFakeExactLetters, trueLetterProbabilities } from '../../helpers/fake-exact-letters.ts'

type Server = Awaited<ReturnType<typeof startFakeExactLetters>>
let servers: Server[] = []
const start = async (...args: Parameters<typeof startFakeExactLetters>) => {
  const server = await startFakeExactLetters(...args)
  servers.push(server)
  return server
}
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

const TEXTS = ['Billing', 'Technical support', 'Account and login', 'Shipping']
const criterion = { key: 'queue', question: 'Which queue?', options: TEXTS.map((text, j) => ({ id: `o${j}`, text })) }
const decisions: Decision[] = Array.from({ length: 8 }, (_, i) => ({ id: `d${i}`, state: `Ticket ${i}: please route this to ${TEXTS[i % 4]}.`, criterion, answer_id: `o${i % 4}` }))
const request = (state: string): ScoreRequest => ({ state, criterion, prompt: buildPrompt(state, criterion) })
const plain = (outcome: unknown) => {
  if (isScoreFailure(outcome as never) || isFlaggedScore(outcome as never)) throw new Error(`expected a plain vector, got ${JSON.stringify(outcome)}`)
  return outcome as number[]
}

describe('exact remote letters (letterReadout)', () => {
  it.each([
    ['vllm', 'completions'],
    ['vllm', 'chat'],
    ['sglang', 'completions'],
  ] as const)('%s over %s: every letter read exactly, none floored, each request counted as exact', async (dialect, api) => {
    const server = await start({ dialect })
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', api, letterReadout: dialect })
    const req = request('Ticket 1: please route this to Technical support.')
    const [outcome] = await score([req])
    const expected = trueLetterProbabilities(req.prompt, 4)
    // The last slot's letter sits far below 30 filler tokens: outside any top-20, read exactly here.
    plain(outcome).forEach((p, i) => expect(p).toBeCloseTo(expected[i]!, 12))
    expect(expected[3]).toBeLessThan(1e-3)
    const asked = server.received.filter((r) => !r.path.endsWith('tokenize'))
    const ids = ['A', 'B', 'C', 'D'].flatMap((l) => [LETTER_ID(l, true), LETTER_ID(l, false)])
    if (dialect === 'vllm') {
      expect(asked[0]!.path).toBe(api === 'chat' ? '/v1/chat/completions' : '/v1/completions')
      expect(asked[0]!.body.allowed_token_ids).toEqual(ids)
      expect(asked[0]!.body.return_tokens_as_token_ids).toBe(true)
    } else {
      expect(asked[0]!.path).toBe('/generate')
      expect(asked[0]!.body.token_ids_logprob).toEqual(ids)
      expect(asked[0]!.body.text).toBe(req.prompt)
    }
    expect(score.stats().readouts).toEqual({ exact: 1, 'top-k': 0 })
    expect(score.stats().missingLogprobs).toBe(0)
    // The ids are looked up once per scorer (40 spellings), not per call.
    await score([request('Ticket 2: Billing please.')])
    expect(server.received.filter((r) => r.path.endsWith('tokenize')).length).toBe(40)
  })

  it('the manifest says which readout each request used; the top-k run floors and flags what its top 20 misses', async () => {
    const server = await start({ dialect: 'vllm' })
    // As the CLI and the suites hand a scorer over: its live manifest entries beside the run's.
    const run = (score: ReturnType<typeof openAIScorer>) => evaluateWithScorer(decisions, score, { debias: 'cyclic', statistics: false, manifest: withScorerManifest({}, score) })
    const exact = await run(openAIScorer({ baseURL: server.baseURL, model: 'tiny', letterReadout: 'vllm' }))
    expect(exact.failed).toBe(0)
    expect(exact.manifest.readouts).toEqual({ exact: 32, 'top-k': 0 })
    expect(exact.manifest.flagged.missing_logprobs ?? 0).toBe(0)
    const topK = await run(openAIScorer({ baseURL: server.baseURL, model: 'tiny' }))
    expect(topK.manifest.readouts).toEqual({ exact: 0, 'top-k': 32 })
    // The top 20 misses letters on every request: floored and flagged, never read as zero.
    expect(topK.manifest.flagged.missing_logprobs).toBe(8)
  })

  it('top-k (what the scorer did before): a letter outside the top-k is floored above zero and flagged, never a silent zero', async () => {
    const server = await start({ dialect: 'vllm' })
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny' })
    const [outcome] = await score([request('Ticket 1: please route this to Technical support.')])
    if (!isFlaggedScore(outcome!)) throw new Error(`expected a flagged vector, got ${JSON.stringify(outcome)}`)
    expect(outcome.flags).toEqual(['missing_logprobs'])
    for (const p of outcome.probabilities) expect(p).toBeGreaterThan(0)
    expect(score.stats().missingLogprobs).toBe(1)
  })

  it('vLLM without processed log-probs (its default raw mode) ignores the restriction in its log-probs: read as top-k, floored and flagged', async () => {
    const server = await start({ dialect: 'vllm', logprobsMode: 'raw' })
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', letterReadout: 'vllm' })
    const [outcome] = await score([request('Ticket 1: please route this to Technical support.')])
    if (!isFlaggedScore(outcome!)) throw new Error(`expected a flagged vector, got ${JSON.stringify(outcome)}`)
    expect(outcome.flags).toEqual(['missing_logprobs'])
    for (const p of outcome.probabilities) expect(p).toBeGreaterThan(0)
    expect(score.stats().readouts).toEqual({ exact: 0, 'top-k': 1 })
  })

  it('a server without the tokenize endpoint fails every request, counted, with the reason; none is read another way', async () => {
    const server = await start({ dialect: 'sglang' })
    // An SGLang server asked in vLLM's dialect: no /tokenize at the root.
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', letterReadout: 'vllm' })
    await expect(evaluateWithScorer(decisions, score, { debias: 'cyclic', statistics: false })).rejects.toThrow(/every decision failed to score \(error 8\).*token ids could not be looked up.*POST \/tokenize: HTTP 404/)
    expect(score.stats().failures).toEqual({ error: 32 })
    expect(server.received.length).toBeGreaterThan(0)
    expect(server.received.every((r) => r.path === '/tokenize')).toBe(true)
  })

  it('misspelt or contradictory options are ConfigErrors naming the option', () => {
    const bad = (options: object) => () => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'tiny', ...options } as never)
    expect(bad({ letterReadout: 'vLLM' })).toThrow(ConfigError)
    expect(bad({ letterReadout: 'vLLM' })).toThrow(/letterReadout/)
    expect(bad({ letterReadout: 'exact' })).toThrow(/letterReadout.*top-k.*vllm.*sglang/s)
    expect(bad({ letterReadOut: 'vllm' })).toThrow(/letterReadOut/)
    expect(bad({ letterReadout: 'sglang', api: 'chat' })).toThrow(/sglang.*completions/)
    expect(bad({ letterReadout: 'vllm', mode: 'generate' })).toThrow(/generate/)
  })

  it('the cache identity and the description name an exact readout (other numbers than the top-k); the top-k key is unchanged', () => {
    const topK = openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'tiny' })
    const exact = openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'tiny', letterReadout: 'sglang' })
    expect(topK.cacheIdentity.settings).toEqual({ url: 'http://127.0.0.1:9/v1/completions', model: 'tiny', api: 'completions', mode: 'logprobs', topLogprobs: 20 })
    expect(exact.cacheIdentity.settings).toMatchObject({ url: 'http://127.0.0.1:9/generate', letterReadout: 'sglang' })
    expect(exact.description).toContain('exact letters (sglang)')
  })
})
