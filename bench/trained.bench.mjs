#!/usr/bin/env node
// Engines, 8 bits and stopping early on the trained example models (npm run bench:trained): the
// reader and the biased reader (examples/models/weights, scripts/train/train.py; 157k parameters),
// scored on the held-out triage set under its 4 cyclic rotations (320 prompts each), every format
// written by make-trained-models from the same committed weights.
// 1. Parity: ONNX fp32 (onnxScorer) against torch's letter probabilities committed beside the
//    weights; transformers.js (its layout, one prompt per forward), a float64 plain-JS Qwen2
//    forward pass (scripts/onnx-fixture/reference.ts) and GGUF F32 (ggufScorer, 1 thread) against
//    ONNX fp32.
// 2. 8 bits: ORT int8 and 4-bit (`sceptic quantize-model`, every MatMul quantized: --max-float 0)
//    and GGUF F16 / Q8_0, each against its engine's fp32: picks kept on the clear prompts (clear =
//    the fp32 top letter leads by >= 0.05, quantize-model's measure, per ordering) and on all, and CPU seconds for the
//    320 prompts (process CPU, worker threads included; median of --rounds interleaved rounds,
//    after a warm-up) as a ratio to fp32. quantize-model's own agreement line is printed too.
// 3. The order-robustness panel and stopping early, from `sceptic evaluate` (bench/stop/trained.mjs:
//    decisions scored over seeds, wall and CPU seconds to the verdict against full runs).
// These networks are tiny: MatMuls do not dominate their time, so their CPU ratios say nothing
// about 8-bit speed on a real model (docs/performance.md uses the 0.5B-shape network for that).
// The machine is shared: the load is printed. Options: --rounds N (default 3), --skip-stop.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture } from '../scripts/load-fixture.mjs'

process.env.ORT_DISABLE_TELEMETRY ??= '1'
const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'skip-stop': { type: 'boolean', default: false } } })
const rounds = Number(opts.rounds)
const root = fileURLToPath(new URL('..', import.meta.url))
const weights = join(root, 'examples/models/weights')
const models = join(root, 'examples/models')
const heldOut = join(root, 'examples/data/triage-heldout.jsonl')
const run = (args) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
const made = run(['scripts/make-trained-models.mjs'])
if (made.status !== 0) throw new Error(made.stderr)

const fixture = await loadFixture()
const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
const { ggufScorer } = await import(join(root, 'dist/gguf/index.js'))
const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
const { AutoModelForCausalLM, AutoTokenizer, env } = await import('@huggingface/transformers')
env.allowRemoteModels = false
env.useFSCache = false
env.useBrowserCache = false
env.localModelPath = join(models, 'transformers-js') + '/'

const rows = readFileSync(heldOut, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
// The rotations torch-letter-probs.json was written under: options[r:] + options[:r].
const requests = rows.flatMap((d) =>
  d.criterion.options.map((_, r) => {
    const criterion = { ...d.criterion, options: [...d.criterion.options.slice(r), ...d.criterion.options.slice(0, r)] }
    return { state: d.state, criterion, prompt: buildPrompt(d.state, criterion) }
  }),
)
const torch = JSON.parse(readFileSync(join(weights, 'torch-letter-probs.json'), 'utf8'))
const config = JSON.parse(readFileSync(join(weights, 'config.json'), 'utf8'))
const shape = { hidden: config.hidden_size, layers: config.num_hidden_layers, heads: config.num_attention_heads, kvHeads: config.num_key_value_heads, ffn: config.intermediate_size, theta: config.rope_theta, eps: config.rms_norm_eps }

const argmax = (v) => v.indexOf(Math.max(...v))
const softmax = (v) => {
  const max = Math.max(...v)
  const e = v.map((x) => Math.exp(x - max))
  const z = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / z)
}
const checked = (got) =>
  got.map((row, i) => {
    if (!Array.isArray(row)) throw new Error(`prompt ${i} was not scored: ${JSON.stringify(row)}`)
    return row
  })
const isClear = (row) => {
  const [a, b] = [...row].sort((x, y) => y - x)
  return a - b >= 0.05
}
function parity(got, reference) {
  let max = 0
  let same = 0
  let confident = 0
  let confidentSame = 0
  got.forEach((row, i) => {
    row.forEach((p, j) => (max = Math.max(max, Math.abs(p - reference[i][j]))))
    const agree = argmax(row) === argmax(reference[i])
    same += agree
    if (Math.max(...reference[i]) >= 0.6) {
      confident++
      confidentSame += agree
    }
  })
  return `${max.toExponential(1)} | ${same}/${got.length} | ${confidentSame}/${confident}`
}
/** Clear decisions of the reference kept, and picks kept over all prompts. */
function kept(got, reference) {
  const clear = reference.map((_, i) => i).filter((i) => isClear(reference[i]))
  const clearKept = clear.filter((i) => argmax(got[i]) === argmax(reference[i])).length
  const picks = got.filter((row, i) => argmax(row) === argmax(reference[i])).length
  return `${clearKept}/${clear.length} (${((100 * clearKept) / clear.length).toFixed(1)}%) | ${picks}/${got.length} (${((100 * picks) / got.length).toFixed(1)}%)`
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** transformers.js on its layout: the letter probabilities of every request, one prompt per forward. */
async function transformersJs(name) {
  const tokenizer = await AutoTokenizer.from_pretrained(name)
  const model = await AutoModelForCausalLM.from_pretrained(name, { dtype: 'fp32', device: 'cpu' })
  try {
    const out = []
    for (const r of requests) {
      const { promptIds, letterIds } = letterTokens(tokenizer, r)
      const { logits } = await model(tokenizer(r.prompt))
      const [, n, vocab] = logits.dims
      out.push(softmax(letterIds.map((id) => logits.data[(n - 1) * vocab + id])))
      void promptIds
    }
    return out
  } finally {
    await model.dispose()
  }
}
/** The prompt's ids and each letter's first token after it (the scorer's " A" readout). */
function letterTokens(tokenizer, r) {
  const promptIds = tokenizer.encode(r.prompt)
  const letterIds = r.criterion.options.map((_, i) => tokenizer.encode(`${r.prompt} ${'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i]}`)[promptIds.length])
  return { promptIds, letterIds }
}
/** The float64 plain-JS forward pass on the committed weights (last position only). */
async function float64(name) {
  const tokenizer = await AutoTokenizer.from_pretrained(name)
  const decoder = fixture.trainedDecoder(weights, name)
  return requests.map((r) => {
    const { promptIds, letterIds } = letterTokens(tokenizer, r)
    const [logits] = fixture.qwen2Forward((w) => decoder.weights.get(w), shape, promptIds, promptIds.map((_, i) => i), true)
    return softmax(letterIds.map((id) => logits[id]))
  })
}

/** Letter probabilities and median CPU seconds of scoring every request with each scorer, the rounds interleaved. */
async function timed(make) {
  const scorers = Object.fromEntries(Object.entries(make).map(([k, f]) => [k, f()]))
  const cpu = Object.fromEntries(Object.keys(make).map((k) => [k, []]))
  const out = {}
  try {
    for (const s of Object.values(scorers)) await s(requests.slice(0, 8)) // warm-up: sessions made, weights packed
    for (let round = 0; round < rounds; round++)
      for (const [k, s] of Object.entries(scorers)) {
        const before = process.cpuUsage()
        out[k] = checked(await s(requests))
        const used = process.cpuUsage(before)
        cpu[k].push((used.user + used.system) / 1e6)
      }
  } finally {
    for (const s of Object.values(scorers)) await s.close()
  }
  return { out, cpu: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)])) }
}

const temp = mkdtempSync(join(tmpdir(), 'sceptic-trained-'))
const parityLines = ['| model | engine, format | reference | max abs Δp | picks equal | picks equal, p ≥ 0.6 |', '| --- | --- | --- | --- | --- | --- |']
const eightLines = ['| model | format | against | clear prompts kept | picks kept | CPU s (320 prompts) | CPU vs fp32 |', '| --- | --- | --- | --- | --- | --- | --- |']
const cliLines = ['| model | quantize-model | clear decisions | decisions kept | per-ordering picks kept |', '| --- | --- | --- | --- | --- |']
const loadBefore = loadavg()[0]
try {
  for (const name of fixture.TRAINED_MODELS) {
    const dir = join(models, name)
    const quantized = {}
    for (const [label, flags] of [['int8', ['--format', 'int8']], ['4-bit', ['--format', 'nbits', '--bits', '4']]]) {
      const out = join(temp, `${name}-${label}`)
      const cli = run(['dist/cli/main.js', 'quantize-model', dir, '--model-out', out, ...flags, '--calibration', heldOut, '--max-float', '0', '--force'])
      const m = /agreement with fp32 on (\d+) clear of (\d+) calibration decisions, on [^:]+: decisions ([\d.]+%), per-ordering picks ([\d.]+%)/.exec(cli.stdout)
      if (!m) throw new Error(`quantize-model ${flags.join(' ')}: ${cli.stdout}${cli.stderr}`)
      cliLines.push(`| ${name} | ${flags.join(' ')} | ${m[1]} of ${m[2]} | ${m[3]} | ${m[4]} |`)
      quantized[label] = out
    }
    const onnx = await timed({
      fp32: () => onnxScorer({ model: dir, workers: 1, threadsPerWorker: 1 }),
      int8: () => onnxScorer({ model: quantized.int8, workers: 1, threadsPerWorker: 1 }),
      '4-bit': () => onnxScorer({ model: quantized['4-bit'], workers: 1, threadsPerWorker: 1 }),
    })
    const gguf = await timed(Object.fromEntries(['F32', 'F16', 'Q8_0'].map((type) => [type, () => ggufScorer({ model: join(models, `${name}${{ F32: '', F16: '-f16', Q8_0: '-q8_0' }[type]}.gguf`), threads: 1 })])))
    const fp32 = onnx.out.fp32
    parityLines.push(`| ${name} | ONNX fp32 | torch | ${parity(fp32, torch.models[name].letterProbabilities)} |`)
    parityLines.push(`| ${name} | transformers.js fp32 | ONNX fp32 | ${parity(await transformersJs(name), fp32)} |`)
    parityLines.push(`| ${name} | plain JS, float64 | ONNX fp32 | ${parity(await float64(name), fp32)} |`)
    parityLines.push(`| ${name} | GGUF F32 | ONNX fp32 | ${parity(gguf.out.F32, fp32)} |`)
    const ratio = (cpu, base) => `${(base / cpu).toFixed(2)}×`
    eightLines.push(`| ${name} | ONNX fp32 | — | — | — | ${onnx.cpu.fp32.toFixed(2)} | 1× |`)
    for (const k of ['int8', '4-bit']) eightLines.push(`| ${name} | ORT ${k} | ONNX fp32 | ${kept(onnx.out[k], fp32)} | ${onnx.cpu[k].toFixed(2)} | ${ratio(onnx.cpu[k], onnx.cpu.fp32)} |`)
    eightLines.push(`| ${name} | GGUF F32 | — | — | — | ${gguf.cpu.F32.toFixed(2)} | 1× |`)
    for (const k of ['F16', 'Q8_0']) eightLines.push(`| ${name} | GGUF ${k} | GGUF F32 | ${kept(gguf.out[k], gguf.out.F32)} | ${gguf.cpu[k].toFixed(2)} | ${ratio(gguf.cpu[k], gguf.cpu.F32)} |`)
  }
} finally {
  rmSync(temp, { recursive: true, force: true })
}
console.log(`${cpus()[0]?.model ?? 'CPU'}, ${cpus().length} cores; load ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`)
console.log(`held-out set: ${rows.length} decisions × 4 rotations = ${requests.length} prompts per model; ${rounds} timed round(s)\n`)
console.log('Parity\n')
console.log(parityLines.join('\n'))
console.log('\n8 bits and 4 bits (every MatMul quantized; ONNX: 1 worker × 1 thread; GGUF: 1 thread)\n')
console.log(eightLines.join('\n'))
console.log('\nquantize-model\'s own agreement line (calibration on the same set; clear = fp32 margin >= 0.05)\n')
console.log(cliLines.join('\n'))
// The panel and the time to verdict, from the CLI as a user runs it (bench/stop/trained.mjs).
if (!opts['skip-stop']) {
  console.log('')
  const stop = spawnSync(process.execPath, ['bench/stop/trained.mjs', '--rounds', String(rounds)], { cwd: root, stdio: 'inherit' })
  if (stop.status !== 0) process.exitCode = 1
}
