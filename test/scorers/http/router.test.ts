import { afterEach, describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision } from '../../../src/core/index.ts'
import { recordsToJsonl } from '../../../src/core/result/result.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { startCacheAwareRouter } from '../../../bench/cache-aware-router.mjs'
import { startPrefixCacheServer } from '../../../bench/prefix-cache-server.mjs'

// Simulated replicas (4 requests at once, a prompt's prefix cached when it finishes, 20 µs per
// uncached token) behind a simulated cache-aware router (longest prefix, least-loaded when imbalanced).
const REPLICA = { usPerToken: 20, slots: 4 }
let closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.map((close) => close()))
  closers = []
})
const replicas = async (n: number) => {
  const servers = await Promise.all(Array.from({ length: n }, () => startPrefixCacheServer(REPLICA)))
  closers.push(...servers.map((s) => s.close))
  return servers
}
const router = async (servers: Awaited<ReturnType<typeof replicas>>) => {
  const started = await startCacheAwareRouter(servers.map((s) => s.baseURL))
  closers.push(started.close)
  return started
}

const words = 'the customer writes that an invoice was charged twice and asks for a refund of the duplicate payment'.split(' ')
const TEXTS = ['Billing', 'Technical support', 'Account and login', 'Shipping and delivery']
const decisions: Decision[] = Array.from({ length: 24 }, (_, i) => ({
  id: `d${i}`,
  state: `Ticket ${i}. ` + Array.from({ length: 120 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
  criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options: TEXTS.map((text, j) => ({ id: `o${j}`, text })) },
  answer_id: `o${i % 4}`,
}))
const run = (baseURL: string, options: { prefixFirst?: boolean } = {}) =>
  // Concurrency as docs/scaling-out.md says: four times what the replicas process at once (2 × 4 × 4).
  evaluateWithScorer(decisions, openAIScorer({ baseURL, model: 'sim', concurrency: 32, retries: 0, ...options }), { debias: 'cyclic', statistics: false })
const hitRate = (servers: Awaited<ReturnType<typeof replicas>>) =>
  servers.reduce((sum, s) => sum + s.counts.cachedTokens, 0) / servers.reduce((sum, s) => sum + s.counts.tokens, 0)

describe('one router URL in front of replicas', () => {
  it('two replicas behind the router give the records of one replica, each decision on one replica, prefixes hit', async () => {
    const [alone] = await replicas(1)
    const one = await run(alone!.baseURL)
    const behind = await replicas(2)
    const front = await router(behind)
    const two = await run(front.baseURL)
    expect(two.failed).toBe(0)
    expect(two.n).toBe(24)
    expect(recordsToJsonl(two.records)).toBe(recordsToJsonl(one.records))
    // Both replicas served, every request of a decision on one of them (its evidence seen by one replica only).
    expect(front.perReplica().every((n: number) => n > 0)).toBe(true)
    expect(front.perReplica().reduce((a: number, b: number) => a + b, 0)).toBe(96)
    const [a, b] = behind.map((s) => s.firstLines)
    expect([...a!].filter((line) => b!.has(line))).toEqual([])
    expect(a!.size + b!.size).toBe(24)
    // Prefix-first: a decision's other orderings arrive after its first finished, when its prefix is cached there.
    expect(front.counts.byPrefix).toBe(72)
    expect(hitRate(behind)).toBeGreaterThan(0.5)
    expect(hitRate(behind)).toBeCloseTo(hitRate([alone!]), 2)
  })

  it('prefix-first is what makes the hits: sent together, the orderings reach the replica the router chose before their prefix is cached', async () => {
    const rate = async (prefixFirst: boolean) => {
      const behind = await replicas(2)
      const result = await run((await router(behind)).baseURL, { prefixFirst })
      expect(result.failed).toBe(0)
      return hitRate(behind)
    }
    const first = await rate(true)
    const together = await rate(false)
    // Prefix-first reaches the most there is (every later ordering hits its decision's whole shared prefix).
    expect(together).toBeLessThan(first - 0.1)
  })
})
