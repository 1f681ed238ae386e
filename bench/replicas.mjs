// Replicas side by side (npm run bench:replicas, and part of npm run bench:http): 80 decisions of
// 400-word evidence, cyclic over 4 options (prefix-first), scored by simulated replicas
// (bench/prefix-cache-server.mjs: 4 requests processed at once each, the others queued; 1,000 µs
// of simulated time per uncached prompt token; a prompt's prefix cached when its request
// finishes). Three ways, in one run: one replica; 1, 2 and 4 replicas behind one URL, a simulated
// cache-aware router (bench/cache-aware-router.mjs: longest-prefix match, least-loaded when
// imbalanced); and 2 and 4 replica URLs given to the scorer (its own affinity, a window each).
// Concurrency as docs/scaling-out.md says: four times what the replicas behind the URL process at
// once (replicas × 4 × 4); the router over 2 replicas at one replica's setting shows why. Reports wall
// time (median of the repeats, interleaved), speed-up over one replica (target: two behind the
// router ≥ 1.8×), the prefix-cache hit rate, decisions split over two replicas (target 0 for the
// scorer's own affinity; a router's least-loaded fallback may split some), and
// whether the records equal one replica's (target: always).
import { startCacheAwareRouter } from './cache-aware-router.mjs'
import { startPrefixCacheServer } from './prefix-cache-server.mjs'

const words = 'the customer writes that an invoice was charged twice and asks for a refund of the duplicate payment before the end of the month'.split(' ')
const texts = ['Billing', 'Technical support', 'Account and login', 'Shipping and delivery']
const decisionsOf = (n, evidenceWords) =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `Ticket ${i}. ` + Array.from({ length: evidenceWords }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '),
    criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options: texts.map((text, j) => ({ id: `o${j}`, text })) },
    answer_id: `o${i % 4}`,
  }))

// BENCH_SERVER='{"usPerToken":300}' overrides the replica; BENCH_REPEATS the repeats.
const SCENARIO = { decisions: 80, words: 400, server: { usPerToken: 1000, slots: 4 }, repeats: Number(process.env.BENCH_REPEATS ?? 3) }
const TARGET = 1.8
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
/** The docs' rule: four times the requests the replicas behind the URL process at once. */
const rule = (replicas, slots) => 4 * replicas * slots

/** One run: fresh replicas (and router); `way` is `one`, `router` or `client` (the scorer's own affinity over the URLs). */
async function once({ openAIScorer, evaluateWithScorer, recordsToJsonl }, decisions, { way, replicas, concurrency }, server) {
  const servers = await Promise.all(Array.from({ length: replicas }, () => startPrefixCacheServer(server)))
  const router = way === 'router' ? await startCacheAwareRouter(servers.map((s) => s.baseURL)) : undefined
  const baseURL = router ? router.baseURL : replicas === 1 ? servers[0].baseURL : servers.map((s) => s.baseURL)
  const score = openAIScorer({ baseURL, model: 'sim', concurrency, retries: 0, timeoutMs: 120_000 })
  const t0 = performance.now()
  const result = await evaluateWithScorer(decisions, score, { debias: 'cyclic', statistics: false, signal: AbortSignal.timeout(300_000) })
  const seconds = (performance.now() - t0) / 1000
  await router?.close()
  await Promise.all(servers.map((s) => s.close()))
  if (result.failed > 0 || result.n !== decisions.length) throw new Error(`replicas bench: ${result.failed} failed of ${decisions.length}`)
  const seen = new Map()
  for (const s of servers) for (const line of s.firstLines) seen.set(line, (seen.get(line) ?? 0) + 1)
  const tokens = servers.reduce((sum, s) => sum + s.counts.tokens, 0)
  const cached = servers.reduce((sum, s) => sum + s.counts.cachedTokens, 0)
  return { seconds, records: recordsToJsonl(result.records), split: [...seen.values()].filter((count) => count > 1).length, hit: cached / tokens, perReplica: servers.map((s) => s.firstLines.size) }
}

/** Print the table; returns whether every target held. */
export async function benchReplicas({ openAIScorer, evaluateWithScorer, recordsToJsonl, write = (s) => process.stdout.write(s) }) {
  const server = { ...SCENARIO.server, ...JSON.parse(process.env.BENCH_SERVER ?? '{}') }
  const decisions = decisionsOf(SCENARIO.decisions, SCENARIO.words)
  const configs = [
    { label: 'one replica', way: 'one', replicas: 1, concurrency: rule(1, server.slots) },
    { label: 'router', way: 'router', replicas: 1, concurrency: rule(1, server.slots) },
    { label: 'router', way: 'router', replicas: 2, concurrency: rule(2, server.slots), targeted: true },
    { label: 'router', way: 'router', replicas: 4, concurrency: rule(4, server.slots) },
    { label: 'router, one replica\'s setting', way: 'router', replicas: 2, concurrency: rule(1, server.slots) },
    // The scorer's `concurrency` is per URL: the same total in flight as the router rows.
    { label: 'client-side affinity', way: 'client', replicas: 2, concurrency: rule(1, server.slots) },
    { label: 'client-side affinity', way: 'client', replicas: 4, concurrency: rule(1, server.slots) },
  ]
  write(
    `\nreplicas: ${SCENARIO.decisions} decisions, ${SCENARIO.words}-word evidence, cyclic n=4 prefix-first; replicas process ${server.slots} at once, ` +
      `${server.usPerToken} µs per uncached token; median of ${SCENARIO.repeats} interleaved repeats\n`,
  )
  write(`${'way'.padEnd(30)} ${'replicas'.padStart(8)} ${'in flight'.padStart(9)} ${'seconds'.padStart(8)} ${'× one'.padStart(6)}  ${'cache hits'.padStart(10)}  decisions per replica  split  records\n`)
  const runs = configs.map(() => [])
  // Interleaved repeats, so a burst of load on the machine hits every configuration alike.
  for (let r = 0; r < SCENARIO.repeats; r++)
    for (const [i, config] of configs.entries()) runs[i].push(await once({ openAIScorer, evaluateWithScorer, recordsToJsonl }, decisions, config, server))
  const reference = runs[0][0].records
  const one = median(runs[0].map((run) => run.seconds))
  let pass = true
  for (const [i, config] of configs.entries()) {
    const seconds = median(runs[i].map((run) => run.seconds))
    const speedup = one / seconds
    const split = Math.max(...runs[i].map((run) => run.split))
    const same = runs[i].every((run) => run.records === reference)
    const inFlight = config.way === 'client' ? config.concurrency * config.replicas : config.concurrency
    const verdict = config.targeted ? (speedup >= TARGET ? ' PASS' : ' MISS') + ` (target ≥ ${TARGET}×)` : ''
    // A router may split a decision (its least-loaded fallback, as real ones do): reported; the scorer's own affinity never may.
    if (verdict.startsWith(' MISS') || (config.way === 'client' && split > 0) || !same) pass = false
    write(
      `${config.label.padEnd(30)} ${String(config.replicas).padStart(8)} ${String(inFlight).padStart(9)} ${seconds.toFixed(2).padStart(8)} ${speedup.toFixed(2).padStart(5)}×  ` +
        `${(100 * median(runs[i].map((run) => run.hit))).toFixed(0).padStart(9)}%  ${runs[i].at(-1).perReplica.join('/').padEnd(21)}  ${String(split).padStart(5)}  ${same ? 'identical' : 'DIFFER'}${verdict}\n`,
    )
  }
  return pass
}
