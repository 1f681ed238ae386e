import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { assignGroups, LOAD_SLACK } from '../../../src/scorers/http/assign.ts'
import { affinityKey, rank, type Endpoint } from '../../../src/scorers/http/endpoints.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { mapPrefixFirst } from '../../../src/scorers/http/prefix-first.ts'
import { fakeOpenAIPerTest, type startFakeOpenAI } from '../../helpers/fake-openai.ts'

const start = fakeOpenAIPerTest()

const endpoint = (label: string, downUntil = 0): Endpoint => ({ url: new URL(label), label, counts: { requests: 0, failures: 0, failovers: 0 }, downUntil, strikes: 0 })
const LABELS = ['http://a/', 'http://b/', 'http://c/', 'http://d/', 'http://e/']

const TEXTS = ['Billing', 'Technical support', 'Account and login', 'Shipping']
const criterion = { key: 'queue', question: 'Which queue?', options: TEXTS.map((text, j) => ({ id: `o${j}`, text })) }
const decision = (i: number): Decision => ({ id: `d${i}`, state: `Ticket ${i}: please route this to ${TEXTS[i % 4]}.`, criterion, answer_id: `o${i % 4}` })
const stateOf = (prompt: string) => prompt.split('\n\n')[0]!

/** Replicas with fixed names (so the hash is fixed) served by real loopback servers behind them. */
async function replicas(names: string[], behave?: Parameters<typeof startFakeOpenAI>[0]) {
  const backing = await Promise.all(names.map(() => start(behave)))
  const baseURL = names.map((name) => `http://${name}.test/v1`)
  const route: typeof fetch = (input, init) => {
    const url = new URL(String(input))
    const i = names.indexOf(url.hostname.replace(/\.test$/, ''))
    return fetch(`${backing[i]!.baseURL.replace(/\/v1$/, '')}${url.pathname}${url.search}`, init)
  }
  const labels = baseURL.map((b) => `${b}/completions`)
  return { backing, baseURL, route, labels }
}

/** Decisions whose rendezvous choice (over `labels`) is skewed: `onFirst` prefer the first label, the rest another. */
function skewed(labels: string[], onFirst: number, others: number): Decision[] {
  const eps = labels.map((label) => endpoint(label))
  const picked: Decision[] = []
  let first = 0
  let rest = 0
  for (let i = 0; first < onFirst || rest < others; i++) {
    const d = decision(i)
    const top = rank(eps, affinityKey({ state: d.state, criterion: d.criterion, prompt: '' }))[0]!.label
    if (top === labels[0] && first < onFirst) (picked.push(d), first++)
    else if (top !== labels[0] && rest < others) (picked.push(d), rest++)
  }
  return picked
}

const groupsArb = fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.integer({ min: 1, max: 9 })), { maxLength: 80 }).map((pairs) => new Map(pairs))

describe('bounded-load affinity (assignGroups)', () => {
  it('puts each key on one live endpoint, the others after it in rendezvous order (failover)', () => {
    fc.assert(
      fc.property(groupsArb, fc.integer({ min: 1, max: 5 }), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }), (groups, n, down) => {
        const eps = LABELS.slice(0, n).map((label, i) => endpoint(label, down[i] ? 1e15 : 0))
        const routes = assignGroups(eps, new Map(), groups, 1000)
        const live = eps.filter((e) => e.downUntil <= 1000)
        for (const key of groups.keys()) {
          const route = routes.get(key)!
          expect(new Set(route).size).toBe(n)
          expect(live.length === 0 || live.includes(route[0]!)).toBe(true)
          expect(route.slice(1)).toEqual(rank(eps, key).filter((e) => e !== route[0]))
        }
      }),
    )
  })

  it('keeps every load within ⌈(1+ε)·m/n⌉ decisions (equal sizes), and within max(bound, mean + largest) for any sizes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 200 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 6 }), (keys, n, size) => {
        const eps = LABELS.slice(0, n).map((label) => endpoint(label))
        const load = new Map<Endpoint, number>()
        assignGroups(eps, load, new Map(keys.map((k) => [k, size])), 0)
        for (const e of eps) expect((load.get(e) ?? 0) / size).toBeLessThanOrEqual(Math.ceil(((1 + LOAD_SLACK) * keys.length) / n))
      }),
    )
    fc.assert(
      fc.property(groupsArb, fc.integer({ min: 1, max: 5 }), (groups, n) => {
        const eps = LABELS.slice(0, n).map((label) => endpoint(label))
        const load = new Map<Endpoint, number>()
        assignGroups(eps, load, groups, 0)
        const total = [...groups.values()].reduce((a, b) => a + b, 0)
        const largest = Math.max(0, ...groups.values())
        for (const e of eps) expect(load.get(e) ?? 0).toBeLessThanOrEqual(Math.max(((1 + LOAD_SLACK) * total) / n, total / n + largest) + 1e-9)
      }),
    )
  })

  it('a rerun keeps its endpoints; and when the hash alone is within the bound, every key keeps its rendezvous endpoint', () => {
    fc.assert(
      fc.property(groupsArb, fc.integer({ min: 2, max: 5 }), (groups, n) => {
        const eps = LABELS.slice(0, n).map((label) => endpoint(label))
        const first = assignGroups(eps, new Map(), groups, 0)
        const again = assignGroups(eps, new Map(), groups, 0)
        for (const key of groups.keys()) expect(again.get(key)![0]).toBe(first.get(key)![0])
        const plain = new Map<Endpoint, number>()
        for (const [key, weight] of groups) plain.set(rank(eps, key)[0]!, (plain.get(rank(eps, key)[0]!) ?? 0) + weight)
        const total = [...groups.values()].reduce((a, b) => a + b, 0)
        if ([...plain.values()].every((l) => l <= ((1 + LOAD_SLACK) * total) / n))
          for (const key of groups.keys()) expect(first.get(key)![0]).toBe(rank(eps, key)[0])
      }),
    )
  })
})

describe('replicas that add up (real servers)', () => {
  it('balances a set the hash splits 30/10: each decision on one replica, each replica within the bound', async () => {
    const { backing, baseURL, route, labels } = await replicas(['a', 'b'])
    const set = skewed(labels, 30, 10)
    const score = openAIScorer({ baseURL, model: 'tiny', concurrency: 8, fetch: route })
    const result = await evaluateWithScorer(set, score, { debias: 'cyclic', statistics: false })
    expect(result.n).toBe(40)
    const [statesA, statesB] = backing.map((s) => new Set(s.received.map((r) => stateOf(r.body.prompt))))
    expect([...statesA!].filter((s) => statesB!.has(s))).toEqual([])
    expect(statesA!.size + statesB!.size).toBe(40)
    expect(Math.max(statesA!.size, statesB!.size)).toBeLessThanOrEqual(Math.ceil((1 + LOAD_SLACK) * 20))
    expect(backing[0]!.received.length + backing[1]!.received.length).toBe(160)
  })

  it('a rerun with a fresh scorer sends every decision to the replica it used before', async () => {
    const { backing, baseURL, route, labels } = await replicas(['a', 'b', 'c'])
    const set = skewed(labels, 25, 15)
    const where = async () => {
      for (const s of backing) s.received.length = 0
      await evaluateWithScorer(set, openAIScorer({ baseURL, model: 'tiny', concurrency: 8, fetch: route }), { debias: 'cyclic', statistics: false })
      return new Map(backing.flatMap((s, i) => s.received.map((r) => [stateOf(r.body.prompt), i] as const)))
    }
    const before = await where()
    expect(before.size).toBe(40)
    expect(await where()).toEqual(before)
  })

  it('each replica has a window of its own: `concurrency` in flight at each, no more', async () => {
    const { backing, baseURL, route } = await replicas(['a', 'b'], () => ({ kind: 'delay', ms: 20 }))
    const score = openAIScorer({ baseURL, model: 'tiny', concurrency: 3, fetch: route })
    const result = await evaluateWithScorer(Array.from({ length: 24 }, (_, i) => decision(i)), score, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(0)
    expect(backing.map((s) => s.maxInFlight)).toEqual([3, 3])
  })

  it('fails over: a replica that refuses connections loses its decisions to the other, none fails', async () => {
    const { backing, baseURL, route } = await replicas(['a', 'b'])
    await backing[0]!.close()
    const score = openAIScorer({ baseURL, model: 'tiny', concurrency: 4, backoffMs: 1, endpointBackoffMs: 60_000, fetch: route })
    const result = await evaluateWithScorer(Array.from({ length: 20 }, (_, i) => decision(i)), score, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(0)
    expect(backing[1]!.received.length).toBe(80)
    // Out after its first refusals: the next call assigns it nothing.
    const before = score.stats().endpoints['http://a.test/v1/completions']!.requests
    await evaluateWithScorer(Array.from({ length: 20 }, (_, i) => decision(100 + i)), score, { debias: 'cyclic', statistics: false })
    expect(score.stats().endpoints['http://a.test/v1/completions']!.requests).toBe(before)
  })
})

describe('loads after an outage', () => {
  it('a replica back from an outage takes its share, not every decision until it caught up', async () => {
    const { backing, baseURL, labels } = await replicas(['a', 'b'])
    let aDown = true
    const route: typeof fetch = (input, init) => {
      const url = new URL(String(input))
      if (url.hostname === 'a.test' && aDown) return Promise.reject(new TypeError('fetch failed'))
      const target = backing[url.hostname === 'a.test' ? 0 : 1]!
      return fetch(`${target.baseURL.replace(/\/v1$/, '')}${url.pathname}`, init)
    }
    const score = openAIScorer({ baseURL, model: 'tiny', concurrency: 4, backoffMs: 1, endpointBackoffMs: 200, fetch: route })
    const set = (from: number) => skewed(labels, 20, 20).map((d, i) => ({ ...d, id: `r${from + i}`, state: `${d.state} (run ${from})` }))
    // While a is out, a call's decisions all go to b.
    await evaluateWithScorer(set(0), score, { debias: 'cyclic', statistics: false })
    await evaluateWithScorer(set(1), score, { debias: 'cyclic', statistics: false })
    aDown = false
    await new Promise((r) => setTimeout(r, 500))
    for (const s of backing) s.received.length = 0
    const result = await evaluateWithScorer(set(2), score, { debias: 'cyclic', statistics: false })
    expect(result.failed).toBe(0)
    const perReplica = backing.map((s) => new Set(s.received.map((r) => stateOf(r.body.prompt))).size)
    expect(perReplica[0]! + perReplica[1]!).toBe(40)
    expect(Math.max(...perReplica)).toBeLessThanOrEqual(Math.ceil((1 + LOAD_SLACK) * 20))
  })
})

describe('prefix-first with lanes', () => {
  it('keeps input order, group order and each lane’s window, for any grouping and lanes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(5), fc.nat(2))), fc.integer({ min: 1, max: 6 }), async (items, limit) => {
        // A group's lane is its key's lane (as the scorer assigns whole decisions).
        const laneOfKey = new Map<number, number>()
        for (const [key, lane] of items) if (!laneOfKey.has(key)) laneOfKey.set(key, lane)
        const lanes = new Set(items.map(([key]) => laneOfKey.get(key)!))
        let inFlight = 0
        const perLane = new Map<number, number>()
        const done = new Set<number>()
        const out = await mapPrefixFirst(
          items,
          ([key]) => String(key),
          limit,
          async ([key], index) => {
            const leader = items.findIndex(([k]) => k === key)
            if (leader !== index) expect(done.has(leader)).toBe(true)
            const lane = laneOfKey.get(key)!
            perLane.set(lane, (perLane.get(lane) ?? 0) + 1)
            expect(++inFlight).toBeLessThanOrEqual(limit * lanes.size)
            expect(perLane.get(lane)).toBeLessThanOrEqual(limit)
            await new Promise((r) => setTimeout(r, (index * 7) % 3))
            inFlight--
            perLane.set(lane, perLane.get(lane)! - 1)
            done.add(index)
            return index * 10
          },
          (index) => laneOfKey.get(items[index]![0])!,
        )
        expect(out).toEqual(items.map((_, i) => i * 10))
      }),
      { numRuns: 40 },
    )
  })
})
