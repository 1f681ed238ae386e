#!/usr/bin/env node
// Readout speed, one run, figures side by side:
//  1. the machine's practical peak: a large fp32 MatMul (X[512,2048] @ W[2048,2048]) in
//     the scorer's layout (2 worker threads x 1 ORT thread each), and on one thread;
//  2. prefix sharing: the generated hidden-512 / 4-layer model, 4-option decisions with
//     ~200-token evidence, `cyclic`: full prompts (prefixSharing 'off') vs shared prefix,
//     suffixes batched and one at a time; same pool, rounds interleaved;
//  3. optimized readout: the same shape with a 32k vocabulary, full logits vs
//     `optimize-model` output (prefix sharing off on both, then on on both);
//  4. achieved GFLOP/s while scoring, against (1).
// Every timed run also records how many cores other processes used (the machine is
// shared); a ratio from a run where that is well above 0 is rough.
// Usage: node bench/onnx-readout.bench.mjs [--decisions N] [--rounds N] [--long N]
//   --long N: instead, score N decisions (tiny model, same code path) and print RSS as it goes.
import { Worker } from 'node:worker_threads'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture } from '../scripts/load-fixture.mjs'
import { makeBenchDecisions } from './decisions.mjs'

// ORT's telemetry off here and in every child (docs/onnx.md, "Nothing leaves the run").
process.env.ORT_DISABLE_TELEMETRY ??= '1'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)

const MID = { hidden: 512, layers: 4, heads: 8, ffn: 2048, vocab: 1024, maxPositions: 512, seed: 3 }
const BIG_VOCAB = { ...MID, vocab: 32768, seed: 4 }
const TINY = { hidden: 64, layers: 2, heads: 4, maxPositions: 512, seed: 5 }
const EVIDENCE_TOKENS = 200
// The fixture BPE learns merges from its corpus only; adding the criterion's lines makes the
// question and options tokenize like a real vocabulary would (~30 suffix tokens, not ~60).
const TOKENIZER = {
  tokenizer: 'bpe',
  tokenizerOptions: { merges: 400, corpus: Array(4).fill('Which queue should handle this ticket?\nA. Billing\nB. Technical support\nC. Account access\nD. Sales\nAnswer: A').join('\n') },
}

/** Matrix-multiply parameters per token of the body (no embeddings, no LM head): QKV, out, MLP. */
const bodyParams = (m) => m.layers * (m.hidden * 3 * m.hidden + m.hidden * m.hidden + 2 * m.hidden * m.ffn)

// ---- machine load ----------------------------------------------------------------

function cpuTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number)
  return { busy: fields.reduce((a, b) => a + b, 0) - fields[3] - fields[4] }
}

/** Time `fn`, and the cores other processes kept busy meanwhile (machine busy time minus this process's, incl. its worker threads). */
async function timed(fn) {
  const stat = cpuTicks()
  const own = process.cpuUsage()
  const t0 = performance.now()
  const value = await fn()
  const seconds = (performance.now() - t0) / 1000
  const mine = process.cpuUsage(own)
  const others = Math.max(0, ((cpuTicks().busy - stat.busy) / 100 - (mine.user + mine.system) / 1e6) / seconds)
  return { seconds, others, value }
}

/** Per-round ratios of scorer `i` to the first, keeping only rounds where neither run shared the machine. */
const row0Clean = (rows, i) => rows[i].rates.map((rate, k) => (rows[i].others[k] < 0.25 && rows[0].others[k] < 0.25 ? rate / rows[0].rates[k] : undefined)).filter((x) => x !== undefined)

const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1]

// ---- 1. peak MatMul ----------------------------------------------------------------

function matmulModel(M, K, N) {
  const { onnx } = require('onnx-proto')
  const w = new Float32Array(K * N).map((_, i) => ((i * 2654435761) % 1000) / 1e5)
  const info = (name, dims) => ({ name, type: { tensorType: { elemType: 1, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } })
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'peak',
      node: [{ opType: 'MatMul', input: ['x', 'w'], output: ['y'], name: 'mm' }],
      initializer: [{ name: 'w', dims: [K, N], dataType: 1, rawData: new Uint8Array(w.buffer) }],
      input: [info('x', [M, K])],
      output: [info('y', [M, N])],
    },
  })
  return onnx.ModelProto.encode(model).finish()
}

const PEAK_WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const ort = require(workerData.ort)
;(async () => {
  const session = await ort.InferenceSession.create(workerData.model, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' })
  const x = new ort.Tensor('float32', new Float32Array(workerData.M * workerData.K).fill(0.01), [workerData.M, workerData.K])
  await session.run({ x })
  parentPort.postMessage('warm')
  await new Promise((resolve) => parentPort.once('message', resolve))
  let runs = 0
  const t0 = performance.now()
  while (performance.now() - t0 < workerData.ms) { await session.run({ x }); runs++ }
  parentPort.postMessage({ runs, ms: performance.now() - t0 })
  await session.release()
})()`

/** GFLOP/s of `threads` single-thread sessions running X[M,K] @ W[K,N] at once (the scorer's layout). */
export async function peak(threads, ms = 2000, { M, K, N } = { M: 512, K: 2048, N: 2048 }) {
  const model = matmulModel(M, K, N)
  const workers = Array.from({ length: threads }, () => new Worker(PEAK_WORKER, { eval: true, workerData: { ort: require.resolve('onnxruntime-node'), model, M, K, ms } }))
  const exited = workers.map((w) => new Promise((resolve) => w.once('exit', resolve)))
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))))
  const { value: results, others } = await timed(() => Promise.all(workers.map((w) => new Promise((resolve) => { w.once('message', resolve); w.postMessage('go') }))))
  await Promise.all(exited)
  const gflops = results.reduce((sum, r) => sum + (2 * M * K * N * r.runs) / (r.ms / 1000) / 1e9, 0)
  return { gflops, others }
}

// ---- decisions -------------------------------------------------------------------

/** Benchmark decisions: see bench/decisions.mjs. */
function makeDecisions(dir, count) {
  return makeBenchDecisions(dir, count, { tokens: EVIDENCE_TOKENS, measure: 'evidence' })
}

// ---- 2–4. scorer comparisons -------------------------------------------------------

/**
 * Interleaved rounds of `evaluateWithScorer(cyclic)` over the named scorers. Returns
 * per-scorer rates, executed GFLOP/s, and the per-round ratios against the first.
 */
async function compare(label, decisions, scorers, flopsPerRun, rounds) {
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  for (const s of scorers) await evaluateWithScorer(decisions.slice(0, 2), s.scorer, { debias: 'cyclic', statistics: false }) // warm-up
  const rows = scorers.map(() => ({ rates: [], gflops: [], others: [] }))
  const probs = scorers.map(() => undefined)
  for (let r = 0; r < rounds; r++) {
    const order = scorers.map((_, i) => i)
    if (r % 2 === 1) order.reverse() // alternate who goes first
    for (const i of order) {
      const s = scorers[i]
      const tokensBefore = s.scorer.stats.tokensRun
      const { seconds, others, value } = await timed(() => evaluateWithScorer(decisions, s.scorer, { debias: 'cyclic', statistics: false }))
      rows[i].rates.push(decisions.length / seconds)
      rows[i].gflops.push(flopsPerRun(s, s.scorer.stats.tokensRun - tokensBefore, value) / seconds / 1e9)
      rows[i].others.push(others)
      probs[i] ??= value.records
    }
  }
  let agreement = 0
  for (let i = 1; i < scorers.length; i++)
    probs[0].forEach((record, k) => {
      for (const [id, p] of Object.entries(record.probabilities)) agreement = Math.max(agreement, Math.abs(p - probs[i][k].probabilities[id]))
    })
  console.log(`\n${label}`)
  console.log(`  ${'scorer'.padEnd(34)} ${'dec/s (median)'.padStart(14)} ${'ratio (median of rounds)'.padStart(25)} ${'GFLOP/s'.padStart(8)}  other cores (median / max)`)
  rows.forEach((row, i) => {
    const ratios = row.rates.map((rate, k) => rate / rows[0].rates[k])
    console.log(
      `  ${scorers[i].name.padEnd(34)} ${median(row.rates).toFixed(2).padStart(14)} ${(median(ratios).toFixed(2) + 'x').padStart(25)} ${median(row.gflops).toFixed(1).padStart(8)}  ${median(row.others).toFixed(2)} / ${Math.max(...row.others).toFixed(2)}`,
    )
  })
  const clean = (i) => row0Clean(rows, i)
  const cleanLine = scorers.slice(1).map((s, k) => { const c = clean(k + 1); return `${s.name}: ${c.length ? median(c).toFixed(2) + 'x over ' + c.length : 'none'}` })
  console.log(`  ratio over clean rounds only (other processes < 0.25 cores in both runs): ${cleanLine.join('; ')}`)
  console.log(`  largest probability difference from the first row: ${agreement.toExponential(1)}`)
  return rows.map((row) => ({ rate: median(row.rates), gflops: median(row.gflops), ratio: median(row.rates.map((rate, k) => rate / rows[0].rates[k])) }))
}

async function main(args) {
  const fixture = await loadFixture()
  const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
  const { optimizeModel } = await buildOptimizer()
  const dir = mkdtempSync(join(tmpdir(), 'sceptic-readout-'))
  const count = Number(args.decisions)
  const rounds = Number(args.rounds)
  try {
    console.log(`machine: ${availableParallelism()} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min) at start`)
    const one = await peak(1)
    const two = await peak(2)
    console.log(`peak fp32 MatMul X[512,2048] @ W[2048,2048]: 1 thread ${one.gflops.toFixed(1)} GFLOP/s (other cores ${one.others.toFixed(2)}); 2 workers x 1 thread ${two.gflops.toFixed(1)} GFLOP/s (other cores ${two.others.toFixed(2)})`)

    const mid = fixture.writeModelDir(join(dir, 'mid'), { ...TOKENIZER, decoder: MID })
    const { decisions, promptTokens, evidenceTokens } = await makeDecisions(mid, count)
    console.log(`\nmodel: hidden ${MID.hidden}, ${MID.layers} layers, vocab ${MID.vocab}; ${count} decisions x 4 options, cyclic; evidence ~${evidenceTokens.toFixed(0)} tokens, prompts ~${promptTokens.toFixed(0)} tokens`)
    // Executed FLOPs: body matmuls for every token run, plus the LM head for every position whose logits the model computes.
    const flops = (model, optimized) => (s, tokensRun) => tokensRun * 2 * bodyParams(model) + (optimized ? 0 : tokensRun * 2 * model.hidden * model.vocab)
    const ideal = (promptTokens * 4) / (promptTokens - (promptTokens - evidenceTokens) + 4 * (promptTokens - evidenceTokens))
    const scorers = [
      { name: 'full prompts (prefixSharing off)', scorer: onnxScorer({ model: mid, prefixSharing: 'off' }) },
      { name: 'shared prefix, suffixes batched', scorer: onnxScorer({ model: mid, prefixSharing: 'batched' }) },
      { name: 'shared prefix, one suffix per run', scorer: onnxScorer({ model: mid, prefixSharing: 'sequential' }) },
    ]
    const prefix = await compare(`prefix sharing (ideal (P+S)n/(P+nS) = ${ideal.toFixed(2)}x; target >= 2.5x):`, decisions, scorers, flops(MID, false), rounds)
    await Promise.all(scorers.map((s) => s.scorer.close()))
    await suffixAB(mid, decisions, onnxScorer, Number(args.ab))

    const big = fixture.writeModelDir(join(dir, 'big'), { ...TOKENIZER, decoder: BIG_VOCAB })
    const t0 = performance.now()
    await optimizeModel(big, join(dir, 'big-opt'))
    console.log(`\nlarge-vocabulary model: vocab ${BIG_VOCAB.vocab}; optimize-model took ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const bigScorers = [
      { name: 'full logits, prefix off', scorer: onnxScorer({ model: big, prefixSharing: 'off' }) },
      { name: 'optimized, prefix off', scorer: onnxScorer({ model: join(dir, 'big-opt'), prefixSharing: 'off' }), optimized: true },
      { name: 'full logits, prefix batched', scorer: onnxScorer({ model: big }) },
      { name: 'optimized, prefix batched', scorer: onnxScorer({ model: join(dir, 'big-opt') }), optimized: true },
    ]
    const readout = await compare(
      'optimized readout (target >= 1.3x), ratios against full logits with prefix sharing off:',
      decisions,
      bigScorers,
      (s, tokens) => flops(BIG_VOCAB, s.optimized)(s, tokens),
      rounds,
    )
    await Promise.all(bigScorers.map((s) => s.scorer.close()))
    console.log('\nsummary (medians):')
    console.log(`  prefix sharing, batched suffixes:        ${prefix[1].ratio.toFixed(2)}x   one suffix per run: ${prefix[2].ratio.toFixed(2)}x   (ideal ${ideal.toFixed(2)}x)`)
    console.log(`  optimized readout, prefix off:            ${readout[1].ratio.toFixed(2)}x   with prefix on both: ${(readout[3].rate / readout[2].rate).toFixed(2)}x   both together vs neither: ${readout[3].ratio.toFixed(2)}x`)
    // The peak again, so a load change during the run shows; the higher of the two is the reference.
    const twoAfter = await peak(2)
    console.log(`  2-worker MatMul peak again at the end: ${twoAfter.gflops.toFixed(1)} GFLOP/s (other cores ${twoAfter.others.toFixed(2)})`)
    two.gflops = Math.max(two.gflops, twoAfter.gflops)
    const best = Math.max(...prefix.map((r) => r.gflops))
    console.log(`  achieved GFLOP/s while scoring (hidden 512): full ${prefix[0].gflops.toFixed(1)}, shared ${prefix[1].gflops.toFixed(1)} = ${((100 * prefix[1].gflops) / two.gflops).toFixed(0)}% of the 2-worker MatMul peak ${two.gflops.toFixed(1)} (best ${((100 * best) / two.gflops).toFixed(0)}%)`)
    console.log(`  (executed FLOPs = weight matmuls of every token run + LM head where computed; attention scores and padding not counted, so slightly low)`)
    console.log(`  load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Batched vs one-suffix-per-run on one worker with one thread, one decision per call
 * (4 suffixes on one prefix), alternating call by call so both see the same load:
 * the cleanest view of the choice the `prefixSharing` default makes.
 */
async function suffixAB(model, decisions, onnxScorer, calls) {
  const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const a = onnxScorer({ model, workers: 1, threadsPerWorker: 1, prefixSharing: 'batched' })
  const b = onnxScorer({ model, workers: 1, threadsPerWorker: 1, prefixSharing: 'sequential' })
  const requestsOf = (d) =>
    [0, 1, 2, 3].map((k) => {
      const options = d.criterion.options.map((_, i) => d.criterion.options[(i + k) % 4])
      const criterion = { ...d.criterion, options }
      return { state: d.state, criterion, prompt: buildPrompt(d.state, criterion) }
    })
  const times = { a: [], b: [], others: [] }
  for (const s of [a, b]) await s(requestsOf(decisions[0]))
  for (let i = 0; i < calls; i++) {
    const requests = requestsOf(decisions[i % decisions.length])
    for (const [key, s] of i % 2 ? [['b', b], ['a', a]] : [['a', a], ['b', b]]) {
      const { seconds, others } = await timed(() => s(requests))
      times[key].push(seconds * 1000)
      times.others.push(others)
    }
  }
  console.log(
    `\nsuffix runs on one prefix (1 worker x 1 thread, 4 suffixes, ${calls} calls each, alternating): batched ${median(times.a).toFixed(1)} ms, one per run ${median(times.b).toFixed(1)} ms per decision (median); batched/one-per-run time ${(median(times.a) / median(times.b)).toFixed(2)}; other cores median ${median(times.others).toFixed(2)}`,
  )
  await Promise.all([a.close(), b.close()])
}

/** Bundle src/scorers/onnx/transform/optimize.ts for plain Node, as load-fixture does for the fixture. */
async function buildOptimizer() {
  const { build } = await import('esbuild')
  const outfile = join(root, 'node_modules/.cache/vitest-sceptic/optimize.mjs')
  await build({ entryPoints: [join(root, 'src/scorers/onnx/transform/optimize.ts')], bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', outfile, logLevel: 'error' })
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`)
}

/**
 * RSS over a long run: `n` decisions (4 rotations each, ~200-token evidence) through
 * one scorer, in calls of 64 decisions as the evaluator chunks them, results dropped;
 * RSS of the process (main thread + worker threads share it) sampled as it goes.
 */
async function longRun(n, modelOptions) {
  const fixture = await loadFixture()
  const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
  const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const dir = mkdtempSync(join(tmpdir(), 'sceptic-long-'))
  try {
    const model = fixture.writeModelDir(join(dir, 'm'), { ...TOKENIZER, decoder: modelOptions })
    const { decisions } = await makeDecisions(model, 64)
    const scorer = onnxScorer({ model })
    await scorer.ready()
    const mb = () => (process.memoryUsage.rss() / 2 ** 20).toFixed(0)
    console.log(`long run: ${n} decisions x 4 rotations, model hidden ${modelOptions.hidden} / ${modelOptions.layers} layers, ${scorer.description}`)
    console.log(`  decisions  RSS MB  heap MB  dec/s`)
    const t0 = performance.now()
    let done = 0
    const samples = []
    while (done < n) {
      const requests = []
      for (let d = 0; d < 64 && done + d < n; d++) {
        // A fresh state per decision (the number changes the tokens), so nothing is shared across calls.
        const base = decisions[(done + d) % decisions.length]
        const state = `Ticket ${done + d}. ` + base.state
        for (let k = 0; k < 4; k++) {
          const options = base.criterion.options.map((_, i) => base.criterion.options[(i + k) % 4])
          const criterion = { ...base.criterion, options }
          requests.push({ state, criterion, prompt: buildPrompt(state, criterion) })
        }
      }
      await scorer(requests)
      const before = done
      done += requests.length / 4
      if (Math.floor(done / 1000) > Math.floor(before / 1000) || done >= n) {
        samples.push(process.memoryUsage.rss())
        console.log(`  ${String(done).padStart(9)}  ${mb().padStart(6)}  ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0).padStart(7)}  ${(done / ((performance.now() - t0) / 1000)).toFixed(1).padStart(5)}`)
      }
    }
    const shared = scorer.stats
    console.log(`  tokens run ${shared.tokensRun} of ${shared.promptTokens} prompt tokens (${((100 * shared.tokensRun) / shared.promptTokens).toFixed(0)}%), ${shared.sharedGroups} shared groups`)
    const tail = samples.slice(1)
    console.log(`  RSS after the first 1000: min ${(Math.min(...tail) / 2 ** 20).toFixed(0)} MB, max ${(Math.max(...tail) / 2 ** 20).toFixed(0)} MB; last - first-after-1000: ${((samples.at(-1) - samples[0]) / 2 ** 20).toFixed(0)} MB`)
    await scorer.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Entry for `npm run bench:onnx` (called from onnx.bench.mjs) and for running this file alone. */
export async function readoutBench(options = {}) {
  const args = { decisions: '8', rounds: '5', ab: '30', ...options }
  if (args.long) return longRun(Number(args.long), args.longModel === 'mid' ? MID : TINY)
  return main(args)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { decisions: { type: 'string', default: '8' }, rounds: { type: 'string', default: '5' }, long: { type: 'string' }, 'long-model': { type: 'string', default: 'tiny' } } })
  await readoutBench({ decisions: values.decisions, rounds: values.rounds, long: values.long, longModel: values['long-model'] })
}
