import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { rank, type Endpoint } from '../../../src/scorers/http/endpoints.ts'
import { mapPrefixFirst } from '../../../src/scorers/http/prefix-first.ts'
import { fakeOpenAIPerTest, type startFakeOpenAI } from '../../helpers/fake-openai.ts'

type Server = Awaited<ReturnType<typeof startFakeOpenAI>>
const start = fakeOpenAIPerTest()

const TEXTS = ['Billing', 'Technical support', 'Account and login', 'Shipping']
function decisions(n: number): Decision[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `Ticket ${i}: please route this to ${TEXTS[i % 4]}.`,
    criterion: { key: 'queue', question: 'Which queue?', options: TEXTS.map((text, j) => ({ id: `o${j}`, text })) },
    answer_id: `o${i % 4}`,
  }))
}
const stateOf = (prompt: string) => prompt.split('\n\n')[0]!

const endpoint = (label: string): Endpoint => ({ url: new URL(label), label, counts: { requests: 0, failures: 0, failovers: 0 }, downUntil: 0, strikes: 0 })

describe('several endpoints (rendezvous affinity)', () => {
  it('sends every request of a decision (all orderings) to one endpoint, spreading decisions over both; counts per endpoint', async () => {
    const [a, b] = [await start(), await start()]
    const score = openAIScorer({ baseURL: [a.baseURL, b.baseURL], model: 'tiny', concurrency: 8 })
    const result = await evaluateWithScorer(decisions(40), score, { debias: 'cyclic', statistics: false })
    expect(result.n).toBe(40)
    expect(result.balancedAccuracy).toBe(1)
    const statesA = new Set(a.received.map((r) => stateOf(r.body.prompt)))
    const statesB = new Set(b.received.map((r) => stateOf(r.body.prompt)))
    expect([...statesA].filter((s) => statesB.has(s))).toEqual([])
    expect(statesA.size + statesB.size).toBe(40)
    expect(Math.min(statesA.size, statesB.size)).toBeGreaterThan(5)
    const counts = score.stats().endpoints
    expect(counts[`${a.baseURL}/completions`]).toEqual({ requests: a.received.length, failures: 0, failovers: 0 })
    expect(counts[`${b.baseURL}/completions`]).toEqual({ requests: b.received.length, failures: 0, failovers: 0 })
    expect(a.received.length + b.received.length).toBe(160)
    expect(score.manifestEntries()).toEqual({ endpoints: counts, readouts: { exact: 0, 'top-k': 160 } })
  })

  it('adding an endpoint moves only the keys it wins (rendezvous property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 50 }), (keys) => {
        const two = [endpoint('http://a/'), endpoint('http://b/')]
        const three = [...two, endpoint('http://c/')]
        for (const key of keys) {
          const before = rank(two, key)[0]!.label
          const after = rank(three, key)[0]!.label
          if (after !== 'http://c/') expect(after).toBe(before)
        }
      }),
    )
  })

  it('an endpoint that refuses connections is taken out; its decisions fail over, none fails', async () => {
    const live = await start()
    const dead = await start()
    const deadURL = dead.baseURL
    await dead.close()
    const score = openAIScorer({ baseURL: [deadURL, live.baseURL], model: 'tiny', concurrency: 4, backoffMs: 1, endpointBackoffMs: 60_000 })
    const result = await evaluateWithScorer(decisions(30), score, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(0)
    expect(result.n).toBe(30)
    const counts = score.stats().endpoints
    const deadCounts = counts[`${deadURL}/completions`]!
    // Out for 60 s after its first refusals: at most the attempts already in flight reached it.
    expect(deadCounts.requests).toBeGreaterThan(0)
    expect(deadCounts.requests).toBeLessThanOrEqual(4)
    expect(deadCounts.failures).toBe(deadCounts.requests)
    expect(counts[`${live.baseURL}/completions`]!.failovers).toBeGreaterThan(0)
    expect(live.received.length).toBe(120)
  })

  it('an endpoint answering 503 is taken out after the attempt; retries go to the other, and it comes back after its back-off', async () => {
    const sick = await start(() => ({ kind: 'status', status: 503 }))
    const well = await start()
    const score = openAIScorer({ baseURL: [sick.baseURL, well.baseURL], model: 'tiny', concurrency: 1, backoffMs: 1, endpointBackoffMs: 60_000 })
    const result = await evaluateWithScorer(decisions(20), score, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(0)
    // Concurrency 1: the first 503 takes it out for 60 s, so it saw exactly one attempt.
    expect(sick.received.length).toBe(1)
    expect(score.stats().endpoints[`${sick.baseURL}/completions`]).toEqual({ requests: 1, failures: 1, failovers: 0 })
    expect(score.stats().endpoints[`${well.baseURL}/completions`]!.failovers).toBeGreaterThan(0)

    const quick = openAIScorer({ baseURL: [sick.baseURL, well.baseURL], model: 'tiny', concurrency: 1, backoffMs: 1, endpointBackoffMs: 1 })
    await evaluateWithScorer(decisions(20), quick, { debias: 'cyclic', statistics: false })
    // A 1 ms back-off: it comes back and is tried again (and fails over each time). How often
    // depends on the machine's speed: the back-off doubles with each failure (1, 2, 4 ms, ...),
    // so a fast run tries it about log2(run ms) times. 300 runs here gave 5 to 8; "more than
    // 3" would fail a fast enough machine, "more than 1" is the claim.
    expect(quick.stats().endpoints[`${sick.baseURL}/completions`]!.requests).toBeGreaterThan(1)
  })

  it('keeps credentials and queries out of the description, the manifest entries and the cache identity', async () => {
    const a = await start()
    const b = await start()
    const withUser = a.baseURL.replace('http://', 'http://user:s3cr3t-pw@') + '?key=s3cr3t-q'
    const score = openAIScorer({ baseURL: [withUser, b.baseURL], model: 'tiny' })
    await score(decisions(4).map((d) => ({ state: d.state, criterion: d.criterion, prompt: `${d.state}\n\nA. x\nAnswer:` })))
    const text = JSON.stringify([score.description, score.stats(), score.manifestEntries(), score.cacheIdentity])
    expect(text).not.toMatch(/s3cr3t|user/)
    // Replicas serve one model: their URLs are not part of the cache identity.
    expect(openAIScorer({ baseURL: [b.baseURL, a.baseURL], model: 'tiny' }).cacheIdentity.settings).toEqual(score.cacheIdentity.settings)
  })

  it('refuses an empty list and a repeated endpoint', () => {
    expect(() => openAIScorer({ baseURL: [], model: 'tiny' })).toThrow(/baseURL is an empty list/)
    expect(() => openAIScorer({ baseURL: ['http://h/v1', 'http://h/v1/'], model: 'tiny' })).toThrow(/same endpoint twice/)
  })
})

describe('prefix-first scheduling', () => {
  /** For each decision, whether any of its later requests arrived before its first was answered. */
  function overlaps(server: Server): number {
    const answered = new Set<string>()
    const arrived = new Map<string, number>()
    let early = 0
    for (const event of server.events) {
      const state = stateOf(event.prompt)
      if (event.type === 'answer') answered.add(state)
      else {
        const count = (arrived.get(state) ?? 0) + 1
        arrived.set(state, count)
        if (count > 1 && !answered.has(state)) early++
      }
    }
    return early
  }

  it('sends the other orderings of a decision only after its first returned (and not without it)', async () => {
    const server = await start(() => ({ kind: 'delay', ms: 5 }))
    const first = openAIScorer({ baseURL: server.baseURL, model: 'tiny', concurrency: 8 })
    const result = await evaluateWithScorer(decisions(12), first, { debias: 'cyclic', statistics: false })
    expect(result.balancedAccuracy).toBe(1)
    expect(server.received.length).toBe(48)
    expect(overlaps(server)).toBe(0)
    server.events.length = 0
    const interleaved = openAIScorer({ baseURL: server.baseURL, model: 'tiny', concurrency: 8, prefixFirst: false })
    await evaluateWithScorer(decisions(12), interleaved, { debias: 'cyclic', statistics: false })
    expect(overlaps(server)).toBeGreaterThan(0)
  })

  it('keeps input order of results and the concurrency bound, for any grouping', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(5)), fc.integer({ min: 1, max: 4 }), async (keys, limit) => {
        let inFlight = 0
        let max = 0
        const started: number[] = []
        const done = new Set<number>()
        const out = await mapPrefixFirst(keys, String, limit, async (key, index) => {
          // A follower starts only after its group's first item is done.
          const leader = keys.indexOf(key)
          if (leader !== index) expect(done.has(leader)).toBe(true)
          started.push(index)
          max = Math.max(max, ++inFlight)
          await new Promise((r) => setTimeout(r, (index * 7) % 3))
          inFlight--
          done.add(index)
          return index * 10
        })
        expect(out).toEqual(keys.map((_, i) => i * 10))
        expect(max).toBeLessThanOrEqual(limit)
        expect(started.sort((a, b) => a - b)).toEqual(keys.map((_, i) => i))
      }),
      { numRuns: 50 },
    )
  })
})

describe('connection pooling', () => {
  it('reuses keep-alive connections: 400 requests at concurrency 8 open at most 8', async () => {
    const server = await start()
    const score = openAIScorer({ baseURL: server.baseURL, model: 'tiny', concurrency: 8 })
    await evaluateWithScorer(decisions(100), score, { debias: 'cyclic', statistics: false })
    expect(server.received.length).toBe(400)
    expect(server.connections).toBeLessThanOrEqual(8)
  })
})
