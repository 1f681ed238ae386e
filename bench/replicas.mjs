// Replicas that add up (part of npm run bench:http): cyclic debiasing (n = 4, prefix-first) over
// 1, 2 and 4 capacity-limited simulated servers (bench/prefix-cache-server.mjs: a fixed cost per
// uncached prompt token, continuous batching, an LRU prefix cache), at 40 and 400 decisions.
// Reports wall time, speed-up over one replica (targets: two ≥ 1.6× at 40, ≥ 1.85× at 400) and
// how many decisions had requests on more than one replica (target 0). Each small run is repeated
// and its median kept, so a loaded machine's scheduling noise weighs less.
import { startPrefixCacheServer } from './prefix-cache-server.mjs'

const words = 'the customer writes that an invoice was charged twice and asks for a refund of the duplicate payment before the end of the month'.split(' ')
const texts = ['Billing', 'Technical support', 'Account and login', 'Shipping and delivery']
const decisionsOf = (n) =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `Ticket ${i}. ` + Array.from({ length: 400 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
    criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options: texts.map((text, j) => ({ id: `o${j}`, text })) },
    answer_id: `o${i % 4}`,
  }))

// 150 µs per uncached token (bench:prefix uses 60): the simulated compute then outweighs the
// client's own time on a loaded machine. BENCH_SERVER='{"usPerToken":60}' overrides.
const SERVER = { usPerToken: 150, ...JSON.parse(process.env.BENCH_SERVER ?? '{}') }
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** One run: `replicas` fresh servers, `decisions` scored; wall seconds, requests per replica, decisions seen by more than one. */
async function once(openAIScorer, evaluateWithScorer, decisions, replicas, concurrency) {
  const servers = await Promise.all(Array.from({ length: replicas }, () => startPrefixCacheServer(SERVER)))
  const score = openAIScorer({ baseURL: replicas === 1 ? servers[0].baseURL : servers.map((s) => s.baseURL), model: 'sim', concurrency, retries: 0, timeoutMs: 120_000 })
  const t0 = performance.now()
  const result = await evaluateWithScorer(decisions, score, { debias: 'cyclic', statistics: false, signal: AbortSignal.timeout(120_000) })
  const seconds = (performance.now() - t0) / 1000
  await Promise.all(servers.map((s) => s.close()))
  const seen = new Map()
  for (const s of servers) for (const line of s.firstLines) seen.set(line, (seen.get(line) ?? 0) + 1)
  const split = [...seen.values()].filter((count) => count > 1).length
  if (result.failed > 0 || result.n !== decisions.length) throw new Error(`replicas bench: ${result.failed} failed of ${decisions.length}`)
  return { seconds, requests: servers.map((s) => s.counts.requests), split }
}

/** Run the table; returns whether both targets held. */
export async function benchReplicas({ openAIScorer, evaluateWithScorer, concurrency = 32, repeats = { 40: 3, 400: 1 }, write = (s) => process.stdout.write(s) }) {
  write(`replicas: cyclic n=4 with prefix-first, concurrency ${concurrency}, capacity-limited simulated servers (median of the repeats)\n`)
  write(`${'decisions'.padStart(9)} ${'replicas'.padStart(8)} ${'seconds'.padStart(8)} ${'× one'.padStart(6)}  requests per replica  decisions split\n`)
  const targets = { 40: 1.6, 400: 1.85 }
  let pass = true
  for (const n of [40, 400]) {
    if (!repeats[n]) continue
    const decisions = decisionsOf(n)
    const runs = { 1: [], 2: [], 4: [] }
    const last = {}
    // Interleaved repeats, so a burst of load on the machine hits every configuration alike.
    for (let r = 0; r < repeats[n]; r++)
      for (const replicas of [1, 2, 4]) {
        const run = await once(openAIScorer, evaluateWithScorer, decisions, replicas, concurrency)
        runs[replicas].push(run.seconds)
        last[replicas] = { ...run, split: Math.max(run.split, last[replicas]?.split ?? 0) }
      }
    const one = median(runs[1])
    for (const replicas of [1, 2, 4]) {
      const seconds = median(runs[replicas])
      const speedup = one / seconds
      const verdict = replicas === 2 ? (speedup >= targets[n] && last[2].split === 0 ? ' PASS' : ' MISS') + ` (target ≥ ${targets[n]}×)` : ''
      if (replicas === 2 && verdict.startsWith(' MISS')) pass = false
      if (last[replicas].split > 0) pass = false
      write(`${String(n).padStart(9)} ${String(replicas).padStart(8)} ${seconds.toFixed(2).padStart(8)} ${speedup.toFixed(2).padStart(5)}×  ${last[replicas].requests.join('/').padEnd(20)}  ${last[replicas].split}${verdict}\n`)
    }
  }
  return pass
}
