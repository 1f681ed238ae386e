#!/usr/bin/env node
// Score cache benchmark (npm run bench:cache). One run, ratios measured together:
//  0. the wrapper's own cost per request, in process, with a scorer that costs nothing;
//  1. a CLI run of N decisions (default 10,000; 4 options, cyclic: 4 requests each) on
//     the ONNX fixture: no cache, cold cache, warm cache, alternated per round;
//     warm/cold speed-up (target ≥ 20×, zero scorer calls warm) and cold overhead
//     over no cache (target ≤ 5%);
//  2. resume: the same run killed with SIGKILL at ~50% of its requests, then rerun:
//     total scorer requests / an uninterrupted run's (target ≤ 1.01);
//  3. the example ONNX eval (`npm run eval`'s model suite) cold vs warm, by the suite's
//     scoring time (manifest seconds) and by the whole `vitest run` wall time.
// Options: --decisions N, --rounds N (default 1), --skip-eval, --micro-only (part 0 alone).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: { decisions: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '1' }, 'skip-eval': { type: 'boolean', default: false }, 'micro-only': { type: 'boolean', default: false } },
})
const N = Number(args.decisions)
const REQUESTS = N * 4
const work = mkdtempSync(join(tmpdir(), 'sceptic-bench-cache-'))
const cli = join(root, 'dist/cli/main.js')
const scorer = join(root, 'bench/cache-scorer.mjs')

// N distinct 4-option decisions from the example tickets (evidence numbered so none repeat).
const tickets = readFileSync(join(root, 'examples/data/tickets.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((d) => d.criterion.key === 'queue' && d.answer_id)
const data = join(work, 'data.jsonl')
writeFileSync(data, Array.from({ length: N }, (_, i) => JSON.stringify({ ...tickets[i % tickets.length], id: `b${i}`, state: `${tickets[i % tickets.length].state} (ticket ${i})` })).join('\n') + '\n')

const counted = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).reduce((sum, n) => sum + Number(n), 0) : 0)

/** Run the CLI; resolves with wall seconds, the JSON manifest and scorer requests. `killAt`: SIGKILL once that many requests were sent. */
function evaluate(name, cacheArgs, { killAt } = {}) {
  const counter = join(work, `${name}.count`)
  const out = join(work, `${name}.json`)
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'evaluate', data, '--scorer', scorer, '--debias', 'cyclic', ...cacheArgs, '--json-out', out], {
      env: { ...process.env, SCEPTIC_BENCH_COUNTER: counter, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const poll = killAt && setInterval(() => counted(counter) >= killAt && child.kill('SIGKILL'), 5)
    child.on('exit', (code, signal) => {
      if (poll) clearInterval(poll)
      const seconds = (performance.now() - t0) / 1000
      if (signal === 'SIGKILL') return resolve({ seconds, requests: counted(counter), killed: true })
      if (code !== 0) return reject(new Error(`${name}: exit ${code}\n${stderr}`))
      resolve({ seconds, requests: counted(counter), manifest: JSON.parse(readFileSync(out, 'utf8')).manifest })
    })
  })
}

const fmt = (x) => x.toFixed(2)

// 0. The wrapper's own cost, in process, with a scorer that costs nothing: key
// derivation, lookups, encoding, the write and its fsync, per request.
{
  const { cachedScorer, CacheStore } = await import(join(root, 'dist/cache/index.js'))
  const { evaluateWithScorer, buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const decisions = readFileSync(data, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
  const free = (requests) => requests.map((r) => r.criterion.options.map((_, i) => i + 1))
  const identity = { kind: 'user', label: 'bench', settings: { cacheKey: 'free' } }
  const time = async (score) => {
    const t0 = performance.now()
    await evaluateWithScorer(decisions, score, { debias: 'cyclic', statistics: false })
    return performance.now() - t0
  }
  const dir = join(work, 'micro')
  const plain = await time(free)
  const cold = await time(cachedScorer(free, { identity, store: new CacheStore(dir) }))
  const warm = await time(cachedScorer(free, { identity, store: new CacheStore(dir) }))
  const us = (ms) => ((ms * 1000) / REQUESTS).toFixed(1)
  console.log(`cache cost per request (free scorer, ${REQUESTS.toLocaleString('en-US')} requests): evaluation alone ${us(plain)} µs, cold cache ${us(cold)} µs (+${us(cold - plain)}), warm ${us(warm)} µs (+${us(warm - plain)})\n`)
}

if (args['micro-only']) {
  rmSync(work, { recursive: true, force: true })
  process.exit(0)
}
const rounds = Number(args.rounds)
const sums = { none: 0, cold: 0, warm: 0, noneEval: 0, coldEval: 0, warmEval: 0 }
let warmCalls = 0
for (let round = 0; round < rounds; round++) {
  const cache = join(work, `cache-${round}`)
  const none = await evaluate(`none-${round}`, ['--no-cache'])
  const cold = await evaluate(`cold-${round}`, ['--cache', cache])
  const warm = await evaluate(`warm-${round}`, ['--cache', cache])
  sums.none += none.seconds
  sums.cold += cold.seconds
  sums.warm += warm.seconds
  sums.noneEval += none.manifest.seconds
  sums.coldEval += cold.manifest.seconds
  sums.warmEval += warm.manifest.seconds
  warmCalls += warm.requests
  console.log(`round ${round + 1}: no cache ${fmt(none.seconds)} s, cold ${fmt(cold.seconds)} s (${cold.manifest.cache.misses} scored), warm ${fmt(warm.seconds)} s (${warm.manifest.cache.hits} hits, ${warm.requests} scorer requests)`)
}
console.log(`\n${N.toLocaleString('en-US')} decisions × 4 orderings, ONNX fixture, CLI wall time (evaluation time in parentheses), mean of ${rounds}:`)
console.log(`  no cache   ${fmt(sums.none / rounds)} s  (${fmt(sums.noneEval / rounds)} s)`)
console.log(`  cold cache ${fmt(sums.cold / rounds)} s  (${fmt(sums.coldEval / rounds)} s)   overhead ${((sums.cold / sums.none - 1) * 100).toFixed(1)}% wall, ${((sums.coldEval / sums.noneEval - 1) * 100).toFixed(1)}% evaluation (target ≤ 5%)`)
console.log(`  warm cache ${fmt(sums.warm / rounds)} s  (${fmt(sums.warmEval / rounds)} s)   ${fmt(sums.cold / sums.warm)}× faster wall, ${fmt(sums.coldEval / sums.warmEval)}× evaluation (target ≥ 20×); scorer requests warm: ${warmCalls}`)

// Resume after SIGKILL at ~50%.
const resumeCache = join(work, 'resume-cache')
const killed = await evaluate('killed', ['--cache', resumeCache], { killAt: REQUESTS / 2 })
const resumed = await evaluate('resumed', ['--cache', resumeCache])
const total = killed.requests + resumed.requests
console.log(`\nresume: killed after ${killed.requests.toLocaleString('en-US')} requests sent (${((killed.requests / REQUESTS) * 100).toFixed(0)}%), rerun scored ${resumed.requests.toLocaleString('en-US')} (${resumed.manifest.cache.hits.toLocaleString('en-US')} hits); total ${total.toLocaleString('en-US')} = ${(total / REQUESTS).toFixed(4)} × an uninterrupted run's ${REQUESTS.toLocaleString('en-US')} (target ≤ 1.01)`)
const plain = JSON.parse(readFileSync(join(work, 'none-0.json'), 'utf8'))
const again = JSON.parse(readFileSync(join(work, 'resumed.json'), 'utf8'))
for (const json of [plain, again]) for (const key of ['started', 'seconds', 'cache']) delete json.manifest[key]
console.log(`resumed JSON equals the uninterrupted run's: ${JSON.stringify(plain) === JSON.stringify(again)}`)

if (!args['skip-eval']) {
  // The example eval's ONNX suite through Vitest, cold then warm, in a fresh cache directory.
  const cache = join(work, 'eval-cache')
  const runEval = (name) =>
    new Promise((resolve, reject) => {
      const t0 = performance.now()
      const report = join(work, `${name}.report.json`)
      const child = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'examples/vitest.config.ts', 'evals/onnx-model.eval.ts', '--reporter=json', `--outputFile=${report}`], {
        cwd: root,
        env: { ...process.env, SCEPTIC_CACHE_DIR: cache, SCEPTIC_CACHE_MODE: 'read-write', CI: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      child.stdout.on('data', (c) => (out += c))
      child.stderr.on('data', (c) => (out += c))
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`${name}: vitest exit ${code}\n${out}`))
        // Vitest's JSON report carries each test's meta: the suite's manifest (evaluation seconds, cache counts).
        const meta = JSON.stringify(JSON.parse(readFileSync(report, 'utf8')))
        const seconds = Number(/"seconds":([0-9.]+)/.exec(meta)?.[1])
        const hits = /"cache":\{"hits":(\d+),"misses":(\d+)\}/.exec(meta)
        resolve({ wall: (performance.now() - t0) / 1000, seconds, hits: Number(hits?.[1]), misses: Number(hits?.[2]) })
      })
    })
  const cold = await runEval('eval-cold')
  const warm = await runEval('eval-warm')
  console.log(`\nexample ONNX eval (vitest run examples, onnx-model.eval.ts): cold ${fmt(cold.wall)} s wall, scoring ${cold.seconds} s (${cold.misses} scored); warm ${fmt(warm.wall)} s wall, scoring ${warm.seconds} s (${warm.hits} hits, ${warm.misses} scored)`)
  console.log(`  scoring (manifest seconds) ${fmt(cold.seconds / warm.seconds)}× faster warm; whole vitest run ${fmt(cold.wall / warm.wall)}× (Vitest start-up and the shared pool's model load are not cached)`)
}
rmSync(work, { recursive: true, force: true })
