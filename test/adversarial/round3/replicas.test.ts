/**
 * Replicas that add up: every decision's requests on one replica, decisions split evenly,
 * each replica with a window of its own, and prefix-first keeping at most `limit` decisions
 * open per replica while a new decision's first request never waits behind released ones.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { affinityKey, rank, settle, type Endpoint } from '../../../src/scorers/http/endpoints.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { mapPrefixFirst } from '../../../src/scorers/http/prefix-first.ts'
import { fakeOpenAIPerTest, letterLogprobs } from '../../helpers/fake-openai.ts'

const start = fakeOpenAIPerTest()
const TEXTS = ['Billing', 'Technical support', 'Account and login', 'Shipping', 'Sales']
const stateOf = (prompt: string) => prompt.split('\n\n')[0]!

const decisions = (count: number, options: number, salt: string): Decision[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `d${i}`,
    state: `Ticket ${salt}-${i}: please route this to ${TEXTS[i % options]}.`,
    criterion: { key: 'queue', question: 'Which queue?', options: TEXTS.slice(0, options).map((text, j) => ({ id: `o${j}`, text })) },
    answer_id: `o${i % options}`,
  }))

/** An in-memory OpenAI endpoint per host: records which host saw which state, and the most requests each had in flight. */
function memoryReplicas(hosts: string[], delays: number[]) {
  const seen = new Map<string, Set<string>>(hosts.map((h) => [h, new Set()]))
  const inFlight = new Map<string, number>(hosts.map((h) => [h, 0]))
  const maxInFlight = new Map<string, number>(hosts.map((h) => [h, 0]))
  let call = 0
  const fetch = (async (input: URL | string, init: { body: string }) => {
    const host = new URL(String(input)).hostname
    const { prompt } = JSON.parse(init.body) as { prompt: string }
    seen.get(host)!.add(stateOf(prompt))
    inFlight.set(host, inFlight.get(host)! + 1)
    maxInFlight.set(host, Math.max(maxInFlight.get(host)!, inFlight.get(host)!))
    await new Promise((r) => setTimeout(r, delays[call++ % delays.length]))
    inFlight.set(host, inFlight.get(host)! - 1)
    const body = { choices: [{ index: 0, text: ' A', logprobs: { top_logprobs: [letterLogprobs(prompt)] } }] }
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
  }) as unknown as typeof globalThis.fetch
  return { fetch, seen, maxInFlight, baseURL: hosts.map((h) => `http://${h}/v1`) }
}

describe('every decision on one replica, decisions split evenly (property)', () => {
  it('for any set, replica count, window and answer timing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 2, max: 5 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 7 }),
        fc.string({ maxLength: 4 }),
        async (count, options, n, concurrency, delays, salt) => {
          const hosts = ['a', 'b', 'c', 'd'].slice(0, n).map((h) => `${h}.test`)
          const replicas = memoryReplicas(hosts, delays)
          const score = openAIScorer({ baseURL: replicas.baseURL, model: 'tiny', concurrency, retries: 0, fetch: replicas.fetch })
          const result = await evaluateWithScorer(decisions(count, options, salt), score, { debias: 'cyclic', statistics: false })
          expect(result.failed).toBe(0)
          const owners = new Map<string, number>()
          for (const states of replicas.seen.values()) for (const state of states) owners.set(state, (owners.get(state) ?? 0) + 1)
          expect(owners.size).toBe(count)
          expect([...owners.values()].every((k) => k === 1)).toBe(true)
          // Every decision sends as many requests: each replica holds ⌊m/n⌋ or ⌈m/n⌉ of them.
          for (const states of replicas.seen.values()) expect(states.size).toBeLessThanOrEqual(Math.ceil(count / n))
          for (const states of replicas.seen.values()) expect(states.size).toBeGreaterThanOrEqual(Math.floor(count / n))
          for (const most of replicas.maxInFlight.values()) expect(most).toBeLessThanOrEqual(concurrency)
        },
      ),
      { numRuns: 30 },
    )
  })
})

describe('two real replicas on 127.0.0.1', () => {
  it('a set the hash splits 30/10 goes 20/20, each decision whole, each replica filling its own window of 8', async () => {
    const names = ['a', 'b']
    const backing = await Promise.all(names.map(() => start(() => ({ kind: 'delay', ms: 100 }))))
    const baseURL = names.map((name) => `http://${name}.test/v1`)
    // Fixed names (so the hash is fixed), real loopback servers behind them.
    const route: typeof fetch = (input, init) => {
      const url = new URL(String(input))
      return fetch(`${backing[names.indexOf(url.hostname.replace(/\.test$/, ''))]!.baseURL.replace(/\/v1$/, '')}${url.pathname}`, init)
    }
    const labels = baseURL.map((b) => `${b}/completions`)
    const eps: Endpoint[] = labels.map((label) => ({ url: new URL(label), label, counts: { requests: 0, failures: 0, failovers: 0 }, downUntil: 0, strikes: 0 }))
    const set: Decision[] = []
    let onA = 0
    for (let i = 0; set.length < 40; i++) {
      const [d] = decisions(1, 4, `s${i}`)
      const top = rank(eps, affinityKey({ state: d!.state, criterion: d!.criterion, prompt: '' }))[0]!.label
      if (top === labels[0] ? onA < 30 : set.length - onA < 10) (set.push({ ...d!, id: `d${set.length}` }), (onA += top === labels[0] ? 1 : 0))
    }
    const score = openAIScorer({ baseURL, model: 'tiny', concurrency: 8, fetch: route })
    const result = await evaluateWithScorer(set, score, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(0)
    const [statesA, statesB] = backing.map((s) => new Set(s.received.map((r) => stateOf(r.body.prompt))))
    expect([...statesA!].filter((s) => statesB!.has(s))).toEqual([])
    expect([statesA!.size, statesB!.size]).toEqual([20, 20])
    expect(backing.map((s) => s.received.length)).toEqual([80, 80])
    // Each replica has the whole window, not half of one shared window.
    expect(backing.map((s) => s.maxInFlight)).toEqual([8, 8])
  })
})

describe('prefix-first keeps at most `limit` decisions open per lane, starts new ones first, releases oldest first', () => {
  it('for any grouping, lanes and timing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(7), fc.nat(2))), fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(3), { minLength: 1, maxLength: 5 }), async (items, limit, delays) => {
        const laneOfKey = new Map<number, number>()
        for (const [key, lane] of items) if (!laneOfKey.has(key)) laneOfKey.set(key, lane)
        const firstOf = new Map<number, number>()
        items.forEach(([key], i) => firstOf.has(key) || firstOf.set(key, i))
        const left = new Map<number, number>()
        for (const [key] of items) left.set(key, (left.get(key) ?? 0) + 1)
        const started = new Set<number>()
        const inFlight = new Map<number, number>()
        // Per lane: the rank at which each group's first item returned, and the last rank a follower started with.
        const returned = new Map<number, number>()
        const lastRank = new Map<number, number>()
        let call = 0
        await mapPrefixFirst(
          items,
          ([key]) => String(key),
          limit,
          async ([key], index) => {
            const lane = laneOfKey.get(key)!
            const isFirst = firstOf.get(key) === index
            // Open groups of this lane: first started, some item not yet.
            const openBefore = [...firstOf].filter(([k, first]) => laneOfKey.get(k) === lane && started.has(first) && left.get(k)! > 0).length
            const waiting = [...firstOf].some(([k, first]) => laneOfKey.get(k) === lane && !started.has(first))
            if (!isFirst && waiting) expect(openBefore).toBe(limit)
            // Released items go oldest release first: an early decision does not age out of the cache.
            if (!isFirst) {
              expect(returned.get(key)! >= (lastRank.get(lane) ?? -1)).toBe(true)
              lastRank.set(lane, returned.get(key)!)
            }
            started.add(index)
            left.set(key, left.get(key)! - 1)
            const open = [...firstOf].filter(([k, first]) => laneOfKey.get(k) === lane && started.has(first) && left.get(k)! > 0).length
            expect(open).toBeLessThanOrEqual(limit)
            inFlight.set(lane, (inFlight.get(lane) ?? 0) + 1)
            expect(inFlight.get(lane)).toBeLessThanOrEqual(limit)
            await new Promise((r) => setTimeout(r, delays[call++ % delays.length]))
            inFlight.set(lane, inFlight.get(lane)! - 1)
            if (isFirst) returned.set(key, returned.size)
            return index
          },
          (index) => laneOfKey.get(items[index]![0])!,
        )
      }),
      { numRuns: 60 },
    )
  })
})

describe('an outage is one strike', () => {
  it('requests in flight when a replica was taken out do not extend its back-off', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 0, max: 10 }), (together, backoffMs, later) => {
        const e: Endpoint = { url: new URL('http://a/'), label: 'http://a/', counts: { requests: 0, failures: 0, failovers: 0 }, downUntil: 0, strikes: 0 }
        // `together` requests fail within the back-off of the first: one outage.
        for (let i = 0; i < together; i++) settle(e, false, backoffMs, 1000 + Math.min(i, later, backoffMs - 1), true)
        expect(e.counts.failures).toBe(together)
        expect(e.strikes).toBe(1)
        expect(e.downUntil).toBe(1000 + backoffMs)
        // Failing again once back: the back-off doubles.
        settle(e, false, backoffMs, 1000 + backoffMs, true)
        expect(e.downUntil).toBe(1000 + 3 * backoffMs)
      }),
    )
  })
})
