#!/usr/bin/env node
// The GGUF scorer of this checkout against another checkout's, side by side (npm run bench:gguf-versions
// -- --against DIR [--decisions N]). DIR is another clone or worktree of the repository with its own
// node_modules (another node-llama-cpp release) and its own dist (npm run build there).
// Each row runs in its own child process, 1 thread, 1 sequence, cyclic over 4 options:
// - the trained reader (examples/models/reader.gguf, npm run make-trained-models) on the held-out
//   triage set, with ONNX fp32 on examples/models/reader (the same weights) as the reference;
// - a generated Qwen2 model (the fixture's, 64 wide) with a 151,936-token vocabulary (Qwen2.5's
//   size: what a per-evaluation native sampler costs grows with it);
// - on that model, node-llama-cpp's controlledEvaluate called directly, one native sampler per
//   call as node-llama-cpp makes them (no reuse): what the scorer's sampler pool saves.
// Columns: CPU ms per ordering, peak RSS, the largest |Δp| against the reference (ONNX fp32 on the
// reader; the other checkout on the generated model). The machine is shared: the load is printed.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

process.env.ORT_DISABLE_TELEMETRY ??= '1'
const here = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    against: { type: 'string' },
    decisions: { type: 'string', default: '300' },
    child: { type: 'string' },
    root: { type: 'string' },
    model: { type: 'string' },
    data: { type: 'string' },
    out: { type: 'string' },
  },
})

if (args.child) {
  // One row, one process: its CPU time and peak RSS are its own.
  const root = args.root
  const requests = JSON.parse(readFileSync(args.data, 'utf8'))
  const version = JSON.parse(readFileSync(join(root, 'node_modules/node-llama-cpp/package.json'), 'utf8')).version
  let probabilities
  const cpu0 = process.cpuUsage()
  if (args.child === 'onnx') {
    const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
    const scorer = onnxScorer({ model: args.model, workers: 1 })
    probabilities = await scorer(requests)
    await scorer.close()
  } else if (args.child === 'gguf') {
    const { ggufScorer } = await import(join(root, 'dist/gguf/index.js'))
    const scorer = ggufScorer({ model: args.model, threads: 1 })
    await scorer.ready()
    probabilities = await scorer(requests)
    await scorer.close()
  } else {
    // controlledEvaluate as node-llama-cpp offers it: a native sampler per call, freed when the garbage collector runs.
    const { getLlama } = await import(join(root, 'node_modules/node-llama-cpp/dist/index.js'))
    const llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, logger: () => {} })
    const model = await llama.loadModel({ modelPath: args.model, gpuLayers: 0 })
    const context = await model.createContext({ contextSize: 1024, threads: 1, flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' })
    const sequence = context.getSequence()
    const letters = ['A', 'B', 'C', 'D'].map((l) => model.tokenize(` ${l}`, false).at(-1))
    // 3.22 returns the letters' logits; 3.21 has no logits API, its cheapest read through the sampler is the confidence.
    const generateNext = version.startsWith('3.21') ? { confidence: true } : { logits: { filter: { tokens: letters } } }
    for (const request of requests) {
      const ids = model.tokenize(request.prompt, true)
      await sequence.clearHistory()
      await sequence.controlledEvaluate([...ids.slice(0, -1), [ids.at(-1), { generateNext }]])
    }
    await context.dispose()
    await model.dispose()
  }
  const cpu = process.cpuUsage(cpu0)
  writeFileSync(args.out, JSON.stringify({ version, cpuSeconds: (cpu.user + cpu.system) / 1e6, rss: process.resourceUsage().maxRSS * 1024, probabilities }))
  process.exit(0)
}

if (!args.against) throw new Error('--against DIR: another checkout of the repository, built, with its own node_modules')
const against = resolve(args.against)
const count = Number(args.decisions)
if (!(Number.isInteger(count) && count > 0)) throw new Error(`--decisions: a positive integer, not "${args.decisions}"`)
const { loadFixture } = await import('../scripts/load-fixture.mjs')
const fixture = await loadFixture()
const { buildPrompt } = await import(join(here, 'dist/core/index.js'))

const rotations = (decisions) =>
  decisions.flatMap((d) =>
    d.criterion.options.map((_, r) => {
      const criterion = { ...d.criterion, options: [...d.criterion.options.slice(r), ...d.criterion.options.slice(0, r)] }
      return { state: d.state, criterion, prompt: buildPrompt(d.state, criterion) }
    }),
  )
const heldOut = readFileSync(join(here, 'examples/data/triage-heldout.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
const SUBJECTS = ['The invoice', 'The app', 'A user', 'The shipment', 'My subscription', 'The password reset email', 'The settings page', 'The order', 'The refund', 'The box']
const EVENTS = ['was charged twice', 'crashes after the latest update', 'cannot log in', 'is stuck at customs', 'should be cancelled', 'never arrives', 'does not open', 'arrived late and damaged', 'has not been paid', 'was sent to the wrong address']
const OPTIONS = ['Billing', 'Technical support', 'Account access', 'Sales'].map((text, i) => ({ id: `o${i}`, text }))
const generated = Array.from({ length: count }, (_, i) => ({ state: `${SUBJECTS[i % 10]} ${EVENTS[Math.floor(i / 10) % 10]} (ticket ${i}).`, criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options: OPTIONS } }))

const scratch = mkdtempSync(join(tmpdir(), 'sceptic-gguf-versions-'))
const load = [loadavg()[0]]
try {
  const tokenizer = fixture.bpeTokenizer({ merges: 200 })
  const wide = join(scratch, 'wide.gguf')
  const shape = { architecture: 'qwen2', hidden: 64, layers: 2, heads: 4, kvHeads: 2, ffn: 128, seed: 11, headScale: 4, attentionSharpness: 3, maxPositions: 1024, vocab: 151936 }
  writeFileSync(wide, fixture.buildGguf(shape, tokenizer))
  const sets = {
    reader: { requests: rotations(heldOut), model: join(here, 'examples/models/reader.gguf'), onnx: join(here, 'examples/models/reader') },
    wide: { requests: rotations(generated), model: wide },
  }
  const run = (child, root, model, set) => {
    const data = join(scratch, `${set}.json`)
    writeFileSync(data, JSON.stringify(sets[set].requests))
    const out = join(scratch, 'row.json')
    const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', child, '--root', root, '--model', model, '--data', data, '--out', out], { stdio: 'inherit' })
    if (result.status !== 0) throw new Error(`${child} on ${set} (${root}) failed: ${result.signal ?? `exit ${result.status}`}`)
    return JSON.parse(readFileSync(out, 'utf8'))
  }
  const maxDelta = (a, b) => Math.max(...a.map((row, i) => Math.max(...row.map((p, j) => Math.abs(p - b[i][j])))))
  const lines = ['| model | row | node-llama-cpp | CPU ms per ordering | peak RSS MiB | max abs Δp | against |', '| --- | --- | --- | --- | --- | --- | --- |']
  const line = (set, name, row, reference, label) => {
    const orderings = sets[set].requests.length
    lines.push(`| ${set} (${orderings} orderings) | ${name} | ${row.version} | ${((1000 * row.cpuSeconds) / orderings).toFixed(2)} | ${(row.rss / 2 ** 20).toFixed(0)} | ${reference ? maxDelta(row.probabilities, reference.probabilities).toExponential(1) : '-'} | ${label ?? '-'} |`)
    console.log(lines.at(-1))
  }
  const onnx = run('onnx', here, sets.reader.onnx, 'reader')
  for (const [name, root] of [['scorer, this checkout', here], ['scorer, --against', against]]) line('reader', name, run('gguf', root, sets.reader.model, 'reader'), onnx, 'ONNX fp32')
  const base = run('gguf', against, wide, 'wide')
  line('wide', 'scorer, --against', base)
  line('wide', 'scorer, this checkout', run('gguf', here, wide, 'wide'), base, '--against')
  for (const [name, root] of [['controlledEvaluate, no reuse, this checkout', here], ['controlledEvaluate, no reuse, --against', against]]) line('wide', name, run('raw', root, wide, 'wide'))
  load.push(loadavg()[0])
  console.log(`\n${lines.join('\n')}\n\nload average ${load.map((l) => l.toFixed(1)).join(' -> ')}`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
