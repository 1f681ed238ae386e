#!/usr/bin/env node
// HTTP scorer (npm run bench:http). First, replicas side by side (bench/replicas.mjs, also npm run
// bench:replicas): one replica, replicas behind a router URL, the scorer's own affinity. Then throughput: openAIScorer at concurrency 64 against a
// loopback mock that answers instantly (bench/http-mock.mjs, its own process), 200,000
// requests in chunks of 1,024 as the evaluator sends them. Reports requests/s (target ≥ 2,000
// on a 2-core machine) and heap/RSS every 20,000 requests (target: flat). Bounded: stops
// after --requests or --max-seconds (default 300), whichever comes first.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '200000' },
    concurrency: { type: 'string', default: '64' },
    'max-seconds': { type: 'string', default: '300' },
    part: { type: 'string', default: 'all' }, // replicas | throughput | all
  },
})
const N = Number(args.requests)
const concurrency = Number(args.concurrency)
const { openAIScorer } = await import(new URL('../dist/http/index.js', import.meta.url).href)
if (args.part !== 'throughput') {
  const { evaluateWithScorer, recordsToJsonl } = await import(new URL('../dist/core/index.js', import.meta.url).href)
  const { benchReplicas } = await import('./replicas.mjs')
  await benchReplicas({ openAIScorer, evaluateWithScorer, recordsToJsonl })
  process.stdout.write('\n')
  if (args.part === 'replicas') process.exit(0)
}

const mock = fork(fileURLToPath(new URL('./http-mock.mjs', import.meta.url)), [], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
const port = await new Promise((resolve, reject) => {
  mock.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())))
  mock.once('exit', (code) => reject(new Error(`mock exited with ${code}`)))
})
const deadline = setTimeout(() => {
  process.stderr.write(`bench:http: stopped after ${args['max-seconds']} s\n`)
  mock.kill()
  process.exit(1)
}, Number(args['max-seconds']) * 1000)

const score = openAIScorer({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'bench', concurrency, retries: 0, ...(process.env.BENCH_GLOBAL_FETCH ? { fetch: globalThis.fetch } : {}) })
const options = ['Billing', 'Technical support', 'Account', 'Shipping'].map((text, i) => ({ id: `o${i}`, text }))
const chunk = (start, size) =>
  Array.from({ length: size }, (_, i) => {
    const d = Math.floor((start + i) / 4)
    const k = (start + i) % 4
    const criterion = { key: 'queue', question: 'Which queue?', options: options.map((_, j) => options[(j + k) % 4]) }
    const state = `Ticket ${d}: please route this.`
    return { state, criterion, prompt: `${state}\n\nWhich queue?\n${criterion.options.map((o, j) => `${'ABCD'[j]}. ${o.text}\n`).join('')}Answer:` }
  })

const mb = (bytes) => (bytes / 2 ** 20).toFixed(1)
const t0 = performance.now()
let done = 0
let failures = 0
const samples = []
while (done < N) {
  const size = Math.min(1024, N - done)
  const out = await score(chunk(done, size))
  failures += out.filter((o) => !Array.isArray(o)).length
  done += size
  if (done % 20480 < 1024 || done === N) {
    global.gc?.()
    const { heapUsed, rss } = process.memoryUsage()
    samples.push({ done, seconds: (performance.now() - t0) / 1000, heap: heapUsed, rss })
    process.stdout.write(`${String(done).padStart(7)} requests  ${((done / (performance.now() - t0)) * 1000).toFixed(0).padStart(6)} req/s  heap ${mb(heapUsed)} MB  rss ${mb(rss)} MB\n`)
  }
}
clearTimeout(deadline)
const seconds = (performance.now() - t0) / 1000
const rate = N / seconds
const first = samples[Math.min(1, samples.length - 1)]
const last = samples.at(-1)
process.stdout.write(
  `\n${N} requests at concurrency ${concurrency} in ${seconds.toFixed(1)} s: ${rate.toFixed(0)} req/s (target ≥ 2,000) ${rate >= 2000 ? 'PASS' : 'MISS'}; ` +
    `failures ${failures}; heap ${mb(first.heap)} → ${mb(last.heap)} MB, rss ${mb(first.rss)} → ${mb(last.rss)} MB (from ${first.done} requests on)\n`,
)
mock.kill()
