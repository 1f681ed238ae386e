// npm run bench: how fast is the arithmetic? 100,000 synthetic decisions (3–6 options)
// under cyclic with a trivial in-process scorer, so everything measured is ours:
// request building, prompt text, validation, aggregation and metrics.
// Each size runs in its own process so peak RSS is per size; compare sizes in one run.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SIZES = [25_000, 50_000, 100_000]

if (process.argv[2] === '--child') {
  const n = Number(process.argv[3])
  const { evaluateWithScorer, computeStatistics } = await import('../dist/core/index.js')
  // A seeded stream for the synthetic data (a 32-bit LCG, Numerical Recipes constants); any fixed sequence will do.
  let state = 1
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  const decisions = Array.from({ length: n }, (_, i) => {
    const k = 3 + Math.floor(random() * 4)
    return {
      id: `d${i}`,
      state: `Ticket ${i}: the customer reports an issue with order ${(random() * 1e6) | 0} and asks what to do next.`,
      criterion: { key: `c${k}`, question: 'Which queue?', options: Array.from({ length: k }, (_, j) => ({ id: `o${j}`, text: `Queue number ${j}` })) },
      answer_id: `o${Math.floor(random() * k)}`,
    }
  })
  // Trivial content scorer: depends on the option id's digit, so no slot effect.
  const scorer = (requests) => requests.map((r) => r.criterion.options.map((o) => 1 + (o.id.charCodeAt(1) & 3)))
  globalThis.gc?.()
  const inputRss = process.memoryUsage().rss / 2 ** 20
  const t0 = performance.now()
  // The arithmetic alone; the statistics (bootstrap intervals) are timed on their own below.
  const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic', statistics: false, onWarning: () => {} })
  const seconds = (performance.now() - t0) / 1000
  const t1 = performance.now()
  const stats = computeStatistics(result.records, null, { seed: 0 })
  const statsSeconds = (performance.now() - t1) / 1000
  const resamples = stats.intervals.balancedAccuracy?.resamples ?? null
  const orderings = result.manifest.forwardPasses
  const rss = process.resourceUsage().maxRSS / 1024
  process.stdout.write(JSON.stringify({ n, seconds, orderings, rss, inputRss, statsSeconds, resamples }) + '\n')
  process.exit(0)
}

const self = fileURLToPath(import.meta.url)
const rows = SIZES.map((n) => {
  const out = spawnSync(process.execPath, ['--expose-gc', self, '--child', String(n)], { encoding: 'utf8' })
  if (out.status !== 0) throw new Error(out.stderr)
  return JSON.parse(out.stdout)
})
console.log('decisions  orderings  seconds  decisions/s  orderings/s  RSS before MB  peak RSS MB  growth bytes/decision  statistics s (resamples)')
for (const r of rows)
  console.log(
    [
      String(r.n).padStart(9),
      String(r.orderings).padStart(10),
      r.seconds.toFixed(2).padStart(8),
      Math.round(r.n / r.seconds).toLocaleString('en').padStart(12),
      Math.round(r.orderings / r.seconds).toLocaleString('en').padStart(12),
      r.inputRss.toFixed(0).padStart(14),
      r.rss.toFixed(0).padStart(12),
      // What evaluating added on top of holding the input: records, accumulators, garbage.
      Math.round(((r.rss - r.inputRss) * 2 ** 20) / r.n).toLocaleString('en').padStart(22),
      `${r.statsSeconds.toFixed(2)} (${r.resamples})`.padStart(25),
    ].join(' '),
  )
const last = rows.at(-1)
console.log(`\ntarget ≥ 200,000 orderings/s on one core: ${Math.round(last.orderings / last.seconds) >= 200_000 ? 'met' : 'NOT met'}`)
