// Replicas that add up (part of npm run bench:http): cyclic debiasing (n = 4, prefix-first) over
// 1, 2 and 4 simulated replicas (bench/prefix-cache-server.mjs: at most 4 requests processed at
// once per replica, the others queued; a cost per uncached prompt token; a prefix cached only
// when its request finishes). Two scenarios: 40 decisions of 200-word evidence at concurrency 8,
// and 40 and 400 decisions of 400-word evidence at concurrency 32. Reports wall time, speed-up
// over one replica (target: two ≥ 1.8× in each), decisions per replica, decisions with requests
// on more than one replica (target 0), the share of replica slots left idle and how long some
// replica queued requests while another had a slot free. A second row per count sends the same
// work through one window shared by the replicas (concurrency ÷ replicas each), as the scorer
// did before each endpoint had its own. Small runs are repeated, interleaved, median kept.
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

// Simulated time per uncached token: long enough that the simulated compute outweighs the
// client's own time on a loaded machine. BENCH_SERVER='{"usPerToken":300}' overrides.
const SCENARIOS = [
  { label: 'issue', decisions: [40], words: 200, concurrency: 8, server: { usPerToken: 1000, slots: 4 }, repeats: 5 },
  { label: 'bench', decisions: [40, 400], words: 400, concurrency: 32, server: { usPerToken: 500, slots: 4 }, repeats: { 40: 5, 400: 1 } },
]
const TARGET = 1.8
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Share of slot time idle, and ms during which some replica queued while another had a slot free (between t0 and t1). */
function idleness(servers, t0, t1) {
  const events = servers.flatMap((s, k) => s.timeline.map(([t, active, queued]) => [t, k, active, queued])).sort((a, b) => a[0] - b[0])
  const state = servers.map(() => [0, 0])
  let last = t0
  let free = 0
  let queuedWhileIdle = 0
  for (const [t, k, active, queued] of [...events, [t1, -1, 0, 0]]) {
    const dt = Math.max(0, Math.min(t, t1) - Math.max(last, t0))
    free += dt * state.reduce((sum, [a], i) => sum + (servers[i].slots - a), 0)
    if (state.some(([, q]) => q > 0) && state.some(([a], i) => a < servers[i].slots)) queuedWhileIdle += dt
    last = Math.max(last, t)
    if (k >= 0) state[k] = [active, queued]
  }
  return { idle: free / ((t1 - t0) * servers.reduce((sum, s) => sum + s.slots, 0)), queuedWhileIdle }
}

/** One run: `replicas` fresh servers, `decisions` scored with `concurrency` per endpoint. */
async function once(openAIScorer, evaluateWithScorer, decisions, replicas, concurrency, server) {
  const servers = await Promise.all(Array.from({ length: replicas }, () => startPrefixCacheServer(server)))
  const score = openAIScorer({ baseURL: replicas === 1 ? servers[0].baseURL : servers.map((s) => s.baseURL), model: 'sim', concurrency, retries: 0, timeoutMs: 120_000 })
  const t0 = performance.now()
  const result = await evaluateWithScorer(decisions, score, { debias: 'cyclic', statistics: false, signal: AbortSignal.timeout(300_000) })
  const t1 = performance.now()
  await Promise.all(servers.map((s) => s.close()))
  const seen = new Map()
  for (const s of servers) for (const line of s.firstLines) seen.set(line, (seen.get(line) ?? 0) + 1)
  const split = [...seen.values()].filter((count) => count > 1).length
  if (result.failed > 0 || result.n !== decisions.length) throw new Error(`replicas bench: ${result.failed} failed of ${decisions.length}`)
  return { seconds: (t1 - t0) / 1000, perReplica: servers.map((s) => s.firstLines.size), split, ...idleness(servers, t0, t1) }
}

/** Run the tables; returns whether every target held. */
export async function benchReplicas({ openAIScorer, evaluateWithScorer, write = (s) => process.stdout.write(s) }) {
  let pass = true
  for (const scenario of SCENARIOS) {
    const server = { ...scenario.server, ...JSON.parse(process.env.BENCH_SERVER ?? '{}') }
    write(
      `\nreplicas (${scenario.label}): ${scenario.words}-word evidence, cyclic n=4 prefix-first, concurrency ${scenario.concurrency} per endpoint; ` +
        `replicas process ${server.slots} at once, ${server.usPerToken} µs per uncached token (median of the repeats)\n`,
    )
    write(`${'decisions'.padStart(9)}  ${'window'.padEnd(13)} ${'replicas'.padStart(8)} ${'seconds'.padStart(8)} ${'× one'.padStart(6)}  decisions per replica  split  idle slots  queued while one idles\n`)
    for (const n of scenario.decisions) {
      const repeats = typeof scenario.repeats === 'number' ? scenario.repeats : scenario.repeats[n]
      const decisions = decisionsOf(n, scenario.words)
      // Each endpoint its own window (the scorer's `concurrency`), and one window shared by the replicas (the scorer before).
      const configs = [
        { window: 'per endpoint', replicas: 1, concurrency: scenario.concurrency },
        { window: 'per endpoint', replicas: 2, concurrency: scenario.concurrency },
        { window: 'per endpoint', replicas: 4, concurrency: scenario.concurrency },
        { window: 'shared', replicas: 2, concurrency: scenario.concurrency / 2 },
        { window: 'shared', replicas: 4, concurrency: scenario.concurrency / 4 },
      ]
      const runs = configs.map(() => [])
      // Interleaved repeats, so a burst of load on the machine hits every configuration alike.
      for (let r = 0; r < repeats; r++)
        for (const [i, config] of configs.entries()) runs[i].push(await once(openAIScorer, evaluateWithScorer, decisions, config.replicas, config.concurrency, server))
      const one = median(runs[0].map((run) => run.seconds))
      for (const [i, config] of configs.entries()) {
        const seconds = median(runs[i].map((run) => run.seconds))
        const speedup = one / seconds
        const split = Math.max(...runs[i].map((run) => run.split))
        const last = runs[i].at(-1)
        const targeted = config.window === 'per endpoint' && config.replicas === 2
        const verdict = targeted ? ((speedup >= TARGET && split === 0 ? ' PASS' : ' MISS') + ` (target ≥ ${TARGET}×)`) : ''
        if (verdict.startsWith(' MISS') || split > 0) pass = false
        write(
          `${String(n).padStart(9)}  ${config.window.padEnd(13)} ${String(config.replicas).padStart(8)} ${seconds.toFixed(2).padStart(8)} ${speedup.toFixed(2).padStart(5)}×  ` +
            `${last.perReplica.join('/').padEnd(21)}  ${String(split).padStart(5)}  ${(100 * median(runs[i].map((run) => run.idle))).toFixed(0).padStart(9)}%  ` +
            `${median(runs[i].map((run) => run.queuedWhileIdle)).toFixed(0).padStart(18)} ms${verdict}\n`,
        )
      }
    }
  }
  return pass
}
