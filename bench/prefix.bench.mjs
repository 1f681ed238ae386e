#!/usr/bin/env node
// Prefix-cache benchmark (npm run bench:prefix), against simulated servers on 127.0.0.1
// (bench/prefix-cache-server.mjs: LRU block cache, 4 requests processed at once, time per uncached token):
//  1. cyclic debiasing at n = 4 with prefix-first scheduling vs a single-ordering run
//     (target ≤ 1.5×), and without prefix-first (interleaved orderings miss: ~4×); cache hit rates;
//  2. two endpoints vs one, cyclic with prefix-first (target ≥ 1.8× throughput).
// Simulated cost (250 µs per uncached token, so it outweighs the client's own time on a loaded
// machine). Bounded: each run has a timeout.
import { parseArgs } from 'node:util'
import { startPrefixCacheServer } from './prefix-cache-server.mjs'

const { values: args } = parseArgs({ options: { decisions: { type: 'string', default: '400' }, concurrency: { type: 'string', default: '32' } } })
const N = Number(args.decisions)
const concurrency = Number(args.concurrency)
const { openAIScorer } = await import(new URL('../dist/http/index.js', import.meta.url).href)
const { evaluateWithScorer } = await import(new URL('../dist/core/index.js', import.meta.url).href)

// Long evidence (~400 tokens) and short options: the shape where prefix caching pays.
const words = 'the customer writes that an invoice was charged twice and asks for a refund of the duplicate payment before the end of the month'.split(' ')
const texts = ['Billing', 'Technical support', 'Account and login', 'Shipping and delivery']
const decisions = Array.from({ length: N }, (_, i) => ({
  id: `d${i}`,
  state: `Ticket ${i}. ` + Array.from({ length: 400 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
  criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options: texts.map((text, j) => ({ id: `o${j}`, text })) },
  answer_id: `o${i % 4}`,
}))

async function run(label, { debias, prefixFirst = true, endpoints = 1 }) {
  const servers = await Promise.all(Array.from({ length: endpoints }, () => startPrefixCacheServer({ usPerToken: 250 })))
  const score = openAIScorer({ baseURL: endpoints === 1 ? servers[0].baseURL : servers.map((s) => s.baseURL), model: 'sim', concurrency, prefixFirst, retries: 0, timeoutMs: 120_000 })
  const t0 = performance.now()
  const result = await evaluateWithScorer(decisions, score, { debias, statistics: false, signal: AbortSignal.timeout(300_000) })
  const seconds = (performance.now() - t0) / 1000
  await Promise.all(servers.map((s) => s.close()))
  const tokens = servers.reduce((sum, s) => sum + s.counts.tokens, 0)
  const cached = servers.reduce((sum, s) => sum + s.counts.cachedTokens, 0)
  const busy = servers.reduce((sum, s) => sum + s.counts.busyMs, 0) / 1000
  const requests = servers.reduce((sum, s) => sum + s.counts.requests, 0)
  process.stdout.write(`${label.padEnd(40)} ${seconds.toFixed(2).padStart(6)} s  ${requests} requests  simulated compute ${busy.toFixed(2)} s  prefix-cache hit rate ${((100 * cached) / tokens).toFixed(1)}%  (n = ${result.n}, failed ${result.failed})\n`)
  return { seconds, busy }
}

const single = await run('debias none (1 ordering)', { debias: 'none' })
const first = await run('cyclic n=4, prefix-first', { debias: 'cyclic' })
const interleaved = await run('cyclic n=4, interleaved (prefixFirst off)', { debias: 'cyclic', prefixFirst: false })
const two = await run('cyclic n=4, prefix-first, 2 endpoints', { debias: 'cyclic', endpoints: 2 })
const ratio = first.seconds / single.seconds
process.stdout.write(
  `\ncyclic with prefix-first / single ordering: ${ratio.toFixed(2)}× wall (target ≤ 1.5×) ${ratio <= 1.5 ? 'PASS' : 'MISS'}; compute ${(first.busy / single.busy).toFixed(2)}×\n` +
    `cyclic interleaved / single ordering: ${(interleaved.seconds / single.seconds).toFixed(2)}× wall, compute ${(interleaved.busy / single.busy).toFixed(2)}×\n` +
    `two endpoints vs one: ${(first.seconds / two.seconds).toFixed(2)}× throughput (target ≥ 1.8×) ${first.seconds / two.seconds >= 1.8 ? 'PASS' : 'MISS'}\n`,
)
