#!/usr/bin/env node
// ONNX scorer benchmark (npm run bench:onnx). Two parts, one run:
//  1. decisions/s under `cyclic`, 4 options, ~230-token prompts, on a generated
//     hidden-512 / 4-layer decoder: naive (one session on the main thread, one prompt
//     per run) vs onnxScorer (worker pool + batching), measured alternately so both
//     see the same machine load; the ratio is the figure to read.
//  2. peak RSS for 3 clients on one model: one shared pool (startScorerServer +
//     connectScorer) vs each client loading its own onnxScorer.
// Options: --decisions N (default 16), --rounds N (default 2), --skip-rss.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture } from '../scripts/load-fixture.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args, positionals } = parseArgs({
  options: { decisions: { type: 'string', default: '16' }, rounds: { type: 'string', default: '2' }, 'skip-rss': { type: 'boolean', default: false }, child: { type: 'string' } },
  allowPositionals: true,
})

const MID = { hidden: 512, layers: 4, heads: 8, ffn: 2048, vocab: 1024, maxPositions: 512, seed: 3 }
const TARGET_TOKENS = 230

/** Decisions whose prompts are ~230 tokens with the fixture BPE, 4 options each. */
async function makeDecisions(dir, count) {
  const { Tokenizer } = await import('@huggingface/tokenizers')
  const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), {})
  const { FIXTURE_CORPUS } = await loadFixture()
  const sentences = FIXTURE_CORPUS.split('\n')
  const criterion = {
    key: 'queue',
    question: 'Which queue should handle this ticket?',
    options: [
      { id: 'billing', text: 'Billing' },
      { id: 'tech', text: 'Technical support' },
      { id: 'account', text: 'Account access' },
      { id: 'sales', text: 'Sales' },
    ],
  }
  const decisions = []
  for (let d = 0; d < count; d++) {
    let state = `Ticket ${d}.`
    for (let s = d; tokenizer.encode(buildPrompt(state, criterion)).ids.length < TARGET_TOKENS; s++) state += ' ' + sentences[s % sentences.length]
    decisions.push({ id: `d${d}`, state, criterion, answer_id: criterion.options[d % 4].id })
  }
  const lengths = decisions.map((x) => tokenizer.encode(buildPrompt(x.state, x.criterion)).ids.length)
  return { decisions, meanTokens: lengths.reduce((a, b) => a + b, 0) / lengths.length }
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

function cpuBusy() {
  // Load average over the last minute vs cores: the other engineers share this machine.
  return loadavg()[0].toFixed(2)
}

async function speed(dir) {
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
  const count = Number(args.decisions)
  const { decisions, meanTokens } = await makeDecisions(dir, count)
  const naive = await naiveScorer(dir)
  const pool = onnxScorer({ model: dir })
  await pool.ready()
  console.log(`model: hidden ${MID.hidden}, ${MID.layers} layers, ${MID.heads} heads, vocab ${MID.vocab}; ${count} decisions x 4 options (cyclic: ${count * 4} prompts of ~${meanTokens.toFixed(0)} tokens)`)
  console.log(`pool: ${pool.describe}; naive: 1 session on the main thread, ORT default threads, batch 1`)
  // Warm-up: first runs allocate arenas.
  await evaluateWithScorer(decisions.slice(0, 2), naive, { debias: 'cyclic' })
  await evaluateWithScorer(decisions.slice(0, 2), pool, { debias: 'cyclic' })
  const rounds = Number(args.rounds)
  const best = { naive: 0, pool: 0 }
  let agreement = 0
  console.log('\nround  naive dec/s  pool dec/s  ratio   load(1m)')
  for (let r = 0; r < rounds; r++) {
    const rate = async (scorer) => {
      const t0 = performance.now()
      const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic' })
      return { rate: count / ((performance.now() - t0) / 1000), result }
    }
    const a = await rate(naive)
    const b = await rate(pool)
    best.naive = Math.max(best.naive, a.rate)
    best.pool = Math.max(best.pool, b.rate)
    agreement = Math.max(agreement, Math.abs(a.result.accuracy - b.result.accuracy))
    console.log(`${String(r + 1).padStart(5)}  ${a.rate.toFixed(2).padStart(11)}  ${b.rate.toFixed(2).padStart(10)}  ${(b.rate / a.rate).toFixed(2).padStart(5)}x  ${cpuBusy()}`)
  }
  console.log(`best   ${best.naive.toFixed(2).padStart(11)}  ${best.pool.toFixed(2).padStart(10)}  ${(best.pool / best.naive).toFixed(2).padStart(5)}x   (target >= 1.15x)`)
  console.log(`same accuracy from both paths: ${agreement === 0 ? 'yes' : `no (diff ${agreement})`}`)
  await pool.close()
  await naive.close()
}

// ---- RSS: 3 clients on one model -------------------------------------------------

function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}

/** Run children, sampling the summed RSS of the given pids every 20 ms; returns the peak sum. */
function samplePeak(pidsFn) {
  let peak = 0
  const timer = setInterval(() => (peak = Math.max(peak, pidsFn().reduce((sum, pid) => sum + rssOf(pid), 0))), 20)
  return { stop: () => (clearInterval(timer), peak) }
}

function child(mode, extra) {
  return spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', mode, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] })
}
const exited = (proc) => new Promise((resolve, reject) => proc.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`)))))
const firstLine = (proc) => new Promise((resolve) => proc.stdout.once('data', (data) => resolve(String(data).trim())))

async function rss(dir) {
  const clients = 3
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`
  console.log(`\npeak RSS, ${clients} client processes scoring 4 decisions each (cyclic) on the same model, summed over all processes:`)
  // Shared: one server process (the role of Vitest's main process), 3 clients.
  const server = child('server', [dir])
  const url = await firstLine(server)
  const pids = [server.pid]
  const sampler = samplePeak(() => pids)
  const procs = Array.from({ length: clients }, () => child('client', [dir, url]))
  pids.push(...procs.map((p) => p.pid))
  await Promise.all(procs.map(exited))
  const sharedPeak = sampler.stop()
  server.kill('SIGTERM')
  await exited(server)
  // Own pool per client: what each eval file would do without the shared server.
  const own = Array.from({ length: clients }, () => child('own', [dir]))
  const ownSampler = samplePeak(() => own.map((p) => p.pid))
  await Promise.all(own.map(exited))
  const ownPeak = ownSampler.stop()
  console.log(`  shared pool (1 server + ${clients} clients): ${mb(sharedPeak)}`)
  console.log(`  one pool per client (${clients} x onnxScorer):  ${mb(ownPeak)}`)
  console.log(`  saving: ${mb(ownPeak - sharedPeak)} (${((1 - sharedPeak / ownPeak) * 100).toFixed(0)}%)`)
}

async function runChild(mode) {
  const [dir, url] = positionals
  const { onnxScorer, startScorerServer, connectScorer } = await import(join(root, 'dist/onnx/index.js'))
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  if (mode === 'server') {
    const server = await startScorerServer({ model: dir })
    process.stdout.write(server.url + '\n')
    // Keep the process alive until the parent says stop (the server itself is unref'd).
    const keepAlive = setInterval(() => {}, 1 << 30)
    process.once('SIGTERM', async () => {
      await server.close()
      clearInterval(keepAlive)
    })
    return
  }
  const { decisions } = await makeDecisions(dir, 4)
  const scorer = mode === 'client' ? connectScorer(url) : onnxScorer({ model: dir })
  await evaluateWithScorer(decisions, scorer, { debias: 'cyclic' })
  await scorer.close()
}

if (args.child) {
  await runChild(args.child)
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sceptic-bench-'))
  try {
    const fixture = await loadFixture()
    const t0 = performance.now()
    fixture.writeModelDir(dir, { tokenizer: 'bpe', decoder: MID })
    console.log(`generated the bench model in ${((performance.now() - t0) / 1000).toFixed(1)} s (${dir})`)
    await speed(dir)
    if (!args['skip-rss']) await rss(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
