#!/usr/bin/env node
// Calibrated int8 on held-out decisions (npm run bench:calibrate). On the fixture's Qwen2
// decoder at Qwen2.5-0.5B's depth and widths (24 layers, hidden 896, 14 heads, 2 KV heads,
// SwiGLU 4864; vocab 32768 by default to keep generation quick; final-norm gain --head-scale
// and sharper attention, as bench:onnx --shape qwen2.5-0.5b, so answers have real margins), two
// disjoint sets of 4-option decisions are made (fixture sentences in two seeded random orders):
// one to calibrate on, one held out. Each is scored (cyclic)
// with the fp32 model, with `quantize-model --format int8` as is, and with
// `quantize-model --format int8 --calibration CAL.jsonl`; printed per int8 row: agreement
// with fp32 on the held-out set's clear decisions (fp32 margin ≥ 0.05) and on their
// per-ordering picks, the speed-up over fp32 in wall and CPU time (same process, same
// settings, after a warm-up; CPU time is what other processes on a shared machine inflate
// least), what stayed float, and the candidates and seconds the calibration took. Options: --layers N, --hidden N, --heads N,
// --kv-heads N, --ffn N, --vocab N, --head-scale X (default 8), --sharpness X (attention,
// default 3), --decisions N (per set, default 80), --tokens N (prompt length, default 60),
// --min-agreement X (default 0.98), --min-picks X (--min-pick-agreement), --rows naive,calibrated (and weight-only: the
// weights rounded as int8 rounds them, activations float, to see which rounding moves decisions), --dir DIR (keep the generated
// model and candidates there and reuse them on the next run). At the defaults a run takes
// several minutes on 2 cores: nice it.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture, loadTypeScript } from '../scripts/load-fixture.mjs'
import { QUEUE } from './decisions.mjs'

// ORT's telemetry off here and in every child (docs/onnx.md, "Nothing leaves the run").
process.env.ORT_DISABLE_TELEMETRY ??= '1'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    layers: { type: 'string', default: '24' },
    hidden: { type: 'string', default: '896' },
    heads: { type: 'string', default: '14' },
    'kv-heads': { type: 'string', default: '2' },
    ffn: { type: 'string', default: '4864' },
    vocab: { type: 'string', default: '32768' },
    'head-scale': { type: 'string', default: '8' },
    sharpness: { type: 'string', default: '3' },
    decisions: { type: 'string', default: '80' },
    tokens: { type: 'string', default: '60' },
    'min-agreement': { type: 'string', default: '0.98' },
    'min-picks': { type: 'string' },
    dir: { type: 'string' },
    rows: { type: 'string', default: 'naive,calibrated' },
  },
})
const shape = { architecture: 'qwen2', attentionSharpness: +args.sharpness, hidden: +args.hidden, layers: +args.layers, heads: +args.heads, kvHeads: +args['kv-heads'], ffn: +args.ffn, vocab: +args.vocab, maxPositions: 512, seed: 3, headScale: +args['head-scale'] }
const count = +args.decisions

/** `count` decisions of about `tokens` prompt tokens: fixture sentences in a seeded random order. */
async function makeSet(dir, fixture, seed, prefix) {
  const { Tokenizer } = await import('@huggingface/tokenizers')
  const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), {})
  const sentences = fixture.FIXTURE_CORPUS.split('\n')
  let state = seed >>> 0
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  return Array.from({ length: count }, (_, d) => {
    let text = `Ticket ${prefix}${d}.`
    while (tokenizer.encode(buildPrompt(text, QUEUE)).ids.length < +args.tokens) text += ' ' + sentences[Math.floor(random() * sentences.length)]
    return { id: `${prefix}${d}`, state: text, criterion: QUEUE, answer_id: QUEUE.options[d % 4].id }
  })
}

/** Score `decisions` (cyclic) on `dir` after a warm-up: records and seconds. */
async function score(dir, decisions) {
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
  const scorer = onnxScorer({ model: dir })
  try {
    await scorer.ready()
    await evaluateWithScorer(decisions.slice(0, 2), scorer, { debias: 'cyclic', statistics: false })
    const started = performance.now()
    const cpu = process.cpuUsage()
    const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic', statistics: false })
    const used = process.cpuUsage(cpu)
    return { records: result.records, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 }
  } finally {
    await scorer.close()
  }
}

/** Agreement with fp32 on fp32's clear decisions (margin ≥ 0.05): final decisions and per-ordering picks. */
function agreement(fp32, other) {
  let clear = 0, same = 0, picks = 0, samePicks = 0
  fp32.forEach((base, i) => {
    const p = Object.values(base.probabilities).sort((a, b) => b - a)
    if (p[0] - p[1] < 0.05) return
    clear++
    if (other[i].prediction === base.prediction) same++
    base.picks.forEach((pick, k) => (picks++, pick === other[i].picks[k] && samePicks++))
  })
  return { clear, decisions: same / clear, picks: samePicks / picks }
}

const cli = (...argv) => {
  const started = performance.now()
  const run = spawnSync('nice', [process.execPath, join(root, 'dist/cli/main.js'), ...argv], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
  if (run.status !== 0) throw new Error(`sceptic ${argv[0]} failed: ${run.stderr.trim().split('\n').at(-1)}`)
  return { stdout: run.stdout, stderr: run.stderr, seconds: (performance.now() - started) / 1000 }
}

const work = args.dir ?? mkdtempSync(join(tmpdir(), 'sceptic-calibrate-bench-'))
try {
  const fixture = await loadFixture()
  const model = join(work, 'fp32')
  if (!existsSync(join(model, 'model.onnx'))) {
    const t0 = performance.now()
    mkdirSync(work, { recursive: true })
    fixture.writeModelDir(model, { tokenizer: 'bpe', decoder: shape, externalDataMinBytes: 1024 })
    console.log(`generated the model in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  }
  const calibration = await makeSet(model, fixture, 1, 'c')
  const heldOut = await makeSet(model, fixture, 2, 'h')
  const calibrationFile = join(work, 'calibration.jsonl')
  writeFileSync(calibrationFile, calibration.map((d) => JSON.stringify(d)).join('\n') + '\n')
  writeFileSync(join(work, 'held-out.jsonl'), heldOut.map((d) => JSON.stringify(d)).join('\n') + '\n')
  console.log(`model: Qwen2, ${shape.layers} layers, hidden ${shape.hidden}, ${shape.heads} heads (${shape.kvHeads} KV), ffn ${shape.ffn}, vocab ${shape.vocab}, final-norm gain ${shape.headScale}, attention x${shape.attentionSharpness}; ${count} calibration + ${count} held-out decisions x 4 orderings (cyclic), ~${args.tokens}-token prompts`)
  const fp32 = await score(model, heldOut)
  const fmt = (a) => `${(100 * a.decisions).toFixed(1)}% of ${a.clear} clear decisions, ${(100 * a.picks).toFixed(1)}% of their picks`
  console.log(`fp32: ${fp32.seconds.toFixed(1)} s, ${fp32.cpuSeconds.toFixed(1)} CPU s`)
  const speed = (run) => `${(fp32.seconds / run.seconds).toFixed(2)}× fp32 (CPU time ${(fp32.cpuSeconds / run.cpuSeconds).toFixed(2)}×)`
  const rows = args.rows.split(',')
  if (rows.includes('naive')) {
    const out = join(work, 'int8')
    const made = existsSync(join(out, 'model.onnx')) ? { seconds: NaN } : cli('quantize-model', model, '--model-out', out, '--format', 'int8')
    const run = await score(out, heldOut)
    console.log(`int8 as is (quantized in ${made.seconds.toFixed(0)} s): held-out ${fmt(agreement(fp32.records, run.records))}; ${speed(run)}`)
  }
  // Where the error comes from: the weights rounded as int8 rounds them, the activations float.
  if (rows.includes('weight-only')) {
    const out = join(work, 'weight-only')
    if (!existsSync(join(out, 'model.onnx'))) {
      await roundWeights(model, out)
      for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) if (existsSync(join(model, file))) copyFileSync(join(model, file), join(out, file))
    }
    const run = await score(out, heldOut)
    console.log(`weights rounded to int8, activations float: held-out ${fmt(agreement(fp32.records, run.records))}; ${speed(run)}`)
  }
  if (rows.includes('calibrated')) {
    const out = join(work, 'int8-calibrated')
    rmSync(out, { recursive: true, force: true })
    const made = cli('quantize-model', model, '--model-out', out, '--format', 'int8', '--calibration', calibrationFile, '--min-agreement', args['min-agreement'], ...(args['min-picks'] ? ['--min-pick-agreement', args['min-picks']] : []), '--force')
    process.stdout.write(made.stderr.split('\n').filter((l) => l.startsWith('calibration')).map((l) => `  ${l}\n`).join(''))
    const info = JSON.parse(readFileSync(join(out, 'quantization.json'), 'utf8'))
    const run = await score(out, heldOut)
    console.log(`int8 calibrated (${made.seconds.toFixed(0)} s, ${info.trials} candidates${info.smoothed ? ', smoothed' : ''}; on the calibration set ${(100 * info.agreement.decisions).toFixed(1)}% / ${(100 * info.agreement.picks).toFixed(1)}%, ${info.keptFloat.length} of ${info.keptFloat.length + info.quantized} MatMuls float${info.forced ? ', below target' : ''}): held-out ${fmt(agreement(fp32.records, run.records))}; ${speed(run)}`)
    if (info.keptFloat.length > 0) console.log(`  kept float: ${info.keptFloat.join(', ')}`)
  }
} finally {
  if (!args.dir) rmSync(work, { recursive: true, force: true })
}

/** `model` with every quantizable weight replaced by its int8 rounding (per column, as quantize-model int8), kept float32. */
async function roundWeights(model, out) {
  const { readRewriteSource, writeRewritten } = await loadTypeScript('src/scorers/onnx/transform/rewrite-source.ts', 'rewrite-source-bench')
  const { quantizeColumns } = await loadTypeScript('src/scorers/onnx/transform/integer-matmul.ts', 'integer-matmul-bench')
  const source = readRewriteSource(model, out)
  for (const node of source.nodes) {
    const weight = source.weights.get(node)
    if (!weight) continue
    const [K, N] = weight.dims.map(Number)
    const raw = weight.rawData
    const q = quantizeColumns(new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)), K, N)
    weight.rawData = new Uint8Array(Float32Array.from(q.values, (v, i) => v * q.scales[i % N]).buffer)
  }
  writeRewritten(source.onnx, source.model, source.initializers, out, source.files.dir)
}
