#!/usr/bin/env node
// ONNX scorer benchmark (npm run bench:onnx). Two parts, one run:
//  1. decisions/s under `cyclic`, 4 options, ~230-token prompts, on a generated
//     hidden-512 / 4-layer decoder: naive (one session on the main thread, one prompt
//     per run) vs onnxScorer (worker pool + batching), measured alternately so both
//     see the same machine load; the ratio is the figure to read.
//  2. peak RSS of a real `vitest run` with 3 eval files on one model: one shared pool
//     (globalSetup + startScorerServer + connectScorer) vs each file loading its own
//     onnxScorer, summed over Vitest's process tree.
//  3. the readout (bench/onnx-readout.bench.mjs): prefix sharing vs full prompts, the
//     optimize-model head vs full logits on a 32k vocabulary, GFLOP/s vs a large MatMul.
//  4. real-model settings (bench/onnx-models.bench.mjs): transformers.js vs onnxScorer fp32
//     vs quantize-model output, speed, agreement and peak RSS per scorer.
//  5. main-thread time (bench/onnx-main-thread.bench.mjs): how busy the main thread is while
//     the scorer tokenizes and runs in its workers.
// Options: --decisions N per round (default 8), --rounds N (default 6), --skip-rss, --rss-only,
//   --skip-readout, --readout-only, --skip-models, --skip-main-thread.
// --shape qwen2.5-0.5b runs only bench/onnx-qwen.bench.mjs (a 24-layer Qwen2-shaped model; its options:
//   --decisions (default 40), --calibration-decisions, --layers, --head-scale, --attention-sharpness, --skip-peer,
//   --skip-quantized, --skip-calibration, --calibration-args).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture } from '../scripts/load-fixture.mjs'
import { makeBenchDecisions } from './decisions.mjs'

// ORT's telemetry off here and in every child (docs/onnx.md, "Nothing leaves the run").
process.env.ORT_DISABLE_TELEMETRY ??= '1'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    decisions: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    shape: { type: 'string' },
    'calibration-decisions': { type: 'string' },
    layers: { type: 'string' },
    'head-scale': { type: 'string' },
    'attention-sharpness': { type: 'string' },
    'skip-peer': { type: 'boolean', default: false },
    'skip-quantized': { type: 'boolean', default: false },
    'skip-calibration': { type: 'boolean', default: false },
    'calibration-args': { type: 'string' },
    'skip-rss': { type: 'boolean', default: false },
    'rss-only': { type: 'boolean', default: false },
    'skip-readout': { type: 'boolean', default: false },
    'readout-only': { type: 'boolean', default: false },
    'skip-models': { type: 'boolean', default: false },
    'skip-main-thread': { type: 'boolean', default: false },
  },
})
if (args.shape) {
  const { qwenBench, qwenOptions } = await import('./onnx-qwen.bench.mjs')
  await qwenBench(qwenOptions(args))
  process.exit(0)
}
args.decisions ??= '8'

const MID = { hidden: 512, layers: 4, heads: 8, ffn: 2048, vocab: 1024, maxPositions: 512, seed: 3 }
const TARGET_TOKENS = 230

/** Benchmark decisions: see bench/decisions.mjs. */
function makeDecisions(dir, count) {
  return makeBenchDecisions(dir, count, { tokens: TARGET_TOKENS, measure: 'prompt' })
}

/** The naive baseline: one session on the main thread (ORT default threads), one prompt per run. */
async function naiveScorer(dir) {
  const ort = await import('onnxruntime-node')
  const { Tokenizer } = await import('@huggingface/tokenizers')
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), {})
  const session = await ort.InferenceSession.create(join(dir, 'model.onnx'))
  const letters = 'ABCD'.split('').map((l) => tokenizer.encode(' ' + l).ids.at(-1))
  const past = session.inputMetadata.filter((m) => m.name.startsWith('past_key_values'))
  const score = async (requests) => {
    const out = []
    for (const request of requests) {
      const ids = tokenizer.encode(request.prompt).ids
      const n = ids.length
      const feeds = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
        position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(i)), [1, n]),
      }
      for (const m of past) feeds[m.name] = new ort.Tensor('float32', new Float32Array(0), [1, m.shape[1], 0, m.shape[3]])
      const { logits } = await session.run(feeds, ['logits'])
      const v = logits.dims[2]
      const row = letters.slice(0, request.criterion.options.length).map((id) => logits.data[(n - 1) * v + id])
      const max = Math.max(...row)
      const exp = row.map((x) => Math.exp(x - max))
      const sum = exp.reduce((a, b) => a + b, 0)
      out.push(exp.map((x) => x / sum))
    }
    return out
  }
  score.close = () => session.release()
  return score
}

/** Busy and total jiffies of the whole machine (/proc/stat, first line). */
function cpuTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number)
  const total = fields.reduce((a, b) => a + b, 0)
  return { busy: total - fields[3] - fields[4], total }
}

/**
 * Cores other processes kept busy during a run: machine-wide busy time minus this
 * process's own CPU time (which includes the pool's worker threads), per second.
 * The machine is shared, so a ratio is only trustworthy when this is near 0.
 */
function otherCores(before, seconds) {
  const after = cpuTicks()
  const own = process.cpuUsage(before.own)
  const tick = 1 / 100 // USER_HZ
  const busySeconds = (after.busy - before.stat.busy) * tick
  return Math.max(0, (busySeconds - (own.user + own.system) / 1e6) / seconds)
}

async function speed(dir) {
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
  const count = Number(args.decisions)
  const { decisions, promptTokens: meanTokens } = await makeDecisions(dir, count)
  const naive = await naiveScorer(dir)
  const pool = onnxScorer({ model: dir })
  await pool.ready()
  console.log(`model: hidden ${MID.hidden}, ${MID.layers} layers, ${MID.heads} heads, vocab ${MID.vocab}; ${count} decisions x 4 options (cyclic: ${count * 4} prompts of ~${meanTokens.toFixed(0)} tokens)`)
  console.log(`pool: ${pool.description}; naive: 1 session on the main thread, ORT default threads, batch 1`)
  // Warm-up: first runs allocate arenas.
  await evaluateWithScorer(decisions.slice(0, 2), naive, { debias: 'cyclic' })
  await evaluateWithScorer(decisions.slice(0, 2), pool, { debias: 'cyclic' })
  const rounds = Number(args.rounds)
  const rates = { naive: [], pool: [] }
  const ratios = []
  let agreement = 0
  const others = []
  console.log('\nround  naive dec/s  pool dec/s  ratio   cores used by other processes (naive / pool run)')
  for (let r = 0; r < rounds; r++) {
    const rate = async (scorer) => {
      const before = { stat: cpuTicks(), own: process.cpuUsage(), t: performance.now() }
      const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic' })
      const seconds = (performance.now() - before.t) / 1000
      return { rate: count / seconds, result, others: otherCores(before, seconds) }
    }
    // Alternate which goes first, so a load change mid-round does not always favour one side.
    const [a, b] = r % 2 === 0 ? [await rate(naive), await rate(pool)] : (([y, x]) => [x, y])([await rate(pool), await rate(naive)])
    rates.naive.push(a.rate)
    rates.pool.push(b.rate)
    ratios.push(b.rate / a.rate)
    // Same numbers from both paths, not just the same accuracy: max |Δp| over every option of every decision.
    a.result.records.forEach((record, i) => {
      for (const [id, p] of Object.entries(record.probabilities)) agreement = Math.max(agreement, Math.abs(p - b.result.records[i].probabilities[id]))
    })
    others.push(Math.max(a.others, b.others))
    console.log(`${String(r + 1).padStart(5)}  ${a.rate.toFixed(2).padStart(11)}  ${b.rate.toFixed(2).padStart(10)}  ${(b.rate / a.rate).toFixed(2).padStart(5)}x  ${a.others.toFixed(2).padStart(6)} / ${b.others.toFixed(2)}`)
  }
  const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1]
  const best = { naive: Math.max(...rates.naive), pool: Math.max(...rates.pool) }
  console.log(`best   ${best.naive.toFixed(2).padStart(11)}  ${best.pool.toFixed(2).padStart(10)}  ${(best.pool / best.naive).toFixed(2).padStart(5)}x`)
  console.log(`median of the per-round ratios: ${median(ratios).toFixed(2)}x   (target >= 1.15x)`)
  const clean = ratios.filter((_, i) => others[i] < 0.25)
  console.log(
    clean.length > 0
      ? `median over the ${clean.length} clean round(s) (other processes < 0.25 cores in both runs): ${median(clean).toFixed(2)}x`
      : `no clean round: other processes used ${Math.min(...others).toFixed(2)}-${Math.max(...others).toFixed(2)} of the ${availableParallelism()} cores; treat the ratios as rough`,
  )
  console.log(`largest probability difference between the two paths: ${agreement.toExponential(1)} (fp32 batch vs solo)`)
  await pool.close()
  await naive.close()
}

// ---- RSS: 3 eval files on one model, in a real Vitest run -----------------------

function rssOf(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}

/** `pid` and all its descendants (Vitest's forks), from /proc. */
function processTree(pid) {
  const children = new Map()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (!children.has(ppid)) children.set(ppid, [])
      children.get(ppid).push(Number(entry))
    } catch {
      // the process ended meanwhile
    }
  }
  const out = []
  const walk = (p) => {
    out.push(p)
    for (const c of children.get(p) ?? []) walk(c)
  }
  walk(pid)
  return out
}

/**
 * A throwaway Vitest project with 3 eval files scoring the same model, either through
 * one shared pool (globalSetup + provide + connectScorer) or each with its own
 * onnxScorer. Lives under node_modules/.cache so `vitest` resolves from the repo.
 */
function writeVitestProject(dir, modelDir, shared) {
  const project = join(root, 'node_modules/.cache/sceptic-bench-vitest', shared ? 'shared' : 'own')
  rmSync(project, { recursive: true, force: true })
  mkdirSync(project, { recursive: true })
  const onnx = JSON.stringify(join(root, 'dist/onnx/index.js'))
  const core = JSON.stringify(join(root, 'dist/core/index.js'))
  writeFileSync(join(project, 'setup.mjs'), `
    import { startScorerServer } from ${onnx}
    export default async function (project) {
      const server = await startScorerServer({ model: ${JSON.stringify(modelDir)} })
      project.provide('scorerUrl', server.url)
      return () => server.close()
    }`)
  writeFileSync(join(project, 'vitest.config.mjs'), `
    export default { test: { include: ['*.eval.mjs'], pool: 'forks', maxWorkers: 3, fileParallelism: true,
      testTimeout: 300000, hookTimeout: 300000${shared ? ", globalSetup: ['./setup.mjs']" : ''} } }`)
  for (let f = 0; f < 3; f++)
    writeFileSync(join(project, `file${f}.eval.mjs`), `
      import { afterAll, expect, inject, it } from 'vitest'
      import { connectScorer, onnxScorer } from ${onnx}
      import { evaluateWithScorer } from ${core}
      const decisions = ${JSON.stringify(dir.decisions)}
      const scorer = ${shared ? "connectScorer(inject('scorerUrl'))" : `onnxScorer({ model: ${JSON.stringify(modelDir)} })`}
      afterAll(() => scorer.close())
      it('scores', async () => {
        const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic' })
        expect(result.n).toBe(decisions.length)
      })`)
  return project
}

async function rss(modelDir) {
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`
  const { decisions } = await makeDecisions(modelDir, 4)
  console.log('\npeak RSS of a `vitest run` with 3 eval files on this model (4 decisions each, cyclic), summed over Vitest and its forks:')
  const peaks = {}
  for (const shared of [true, false]) {
    const project = writeVitestProject({ decisions }, modelDir, shared)
    const proc = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project, '--config', join(project, 'vitest.config.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    proc.stdout.on('data', (d) => (output += d))
    proc.stderr.on('data', (d) => (output += d))
    let peak = 0
    const timer = setInterval(() => (peak = Math.max(peak, processTree(proc.pid).reduce((sum, pid) => sum + rssOf(pid), 0))), 25)
    const code = await new Promise((resolve) => proc.on('exit', resolve))
    clearInterval(timer)
    if (code !== 0) throw new Error(`vitest run (${shared ? 'shared' : 'own'}) failed:\n${output}`)
    peaks[shared ? 'shared' : 'own'] = peak
    rmSync(project, { recursive: true, force: true })
  }
  console.log(`  one shared pool (globalSetup + connectScorer): ${mb(peaks.shared)}`)
  console.log(`  one pool per eval file (onnxScorer in each):   ${mb(peaks.own)}`)
  console.log(`  saving: ${mb(peaks.own - peaks.shared)} (${((1 - peaks.shared / peaks.own) * 100).toFixed(0)}%); the weights here are ${mb(statSync(join(modelDir, 'model.onnx')).size)} per copy`)
}

if (args['readout-only']) {
  const { readoutBench } = await import('./onnx-readout.bench.mjs')
  await readoutBench({ decisions: args.decisions, rounds: args.rounds })
  process.exit(0)
}
const dir = mkdtempSync(join(tmpdir(), 'sceptic-bench-'))
try {
  const fixture = await loadFixture()
  const t0 = performance.now()
  fixture.writeModelDir(dir, { tokenizer: 'bpe', decoder: MID })
  console.log(`generated the bench model in ${((performance.now() - t0) / 1000).toFixed(1)} s (${dir})`)
  if (!args['rss-only']) await speed(dir)
  if (!args['skip-rss']) await rss(dir)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
if (!args['skip-readout'] && !args['rss-only']) {
  console.log('\n---- readout: prefix sharing, optimized head, GFLOP/s ----')
  const { readoutBench } = await import('./onnx-readout.bench.mjs')
  await readoutBench({ decisions: args.decisions, rounds: args.rounds })
}
if (!args['skip-models'] && !args['rss-only']) {
  console.log('\n---- real-model settings: transformers.js, fp32, quantize-model (4 and 8 bits) ----')
  const { modelsBench } = await import('./onnx-models.bench.mjs')
  await modelsBench({ decisions: Math.max(12, Number(args.decisions)) })
}
if (!args['skip-main-thread'] && !args['rss-only']) {
  console.log('\n---- main-thread time: tokenizing and inference in the workers ----')
  const { mainThreadBench } = await import('./onnx-main-thread.bench.mjs')
  await mainThreadBench({})
}
