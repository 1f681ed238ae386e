#!/usr/bin/env node
// Engines and 8 bits on the trained example models (npm run bench:trained): the reader and the
// biased reader (examples/models/weights, scripts/train/train.py), scored on the held-out triage set
// under its 4 cyclic rotations (320 prompts each).
// - ONNX fp32 (onnxScorer on examples/models/{reader,biased}, written by make-trained-models) against
//   torch's letter probabilities committed beside the weights;
// - GGUF F32, F16 and Q8_0 (the project's GGUF writer, same weights; ggufScorer, 1 thread) against ONNX;
// - `sceptic quantize-model --format int8` and `--format nbits --bits 4`, every MatMul quantized
//   (--max-float 0), agreement on the clear decisions as the CLI measures it.
// Columns: the largest |Δp| of a letter probability, picks equal to the reference's, and those among
// prompts whose reference top probability is >= 0.6. The machine is shared: the load is printed.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadFixture } from '../scripts/load-fixture.mjs'

process.env.ORT_DISABLE_TELEMETRY ??= '1'
const root = fileURLToPath(new URL('..', import.meta.url))
const weights = join(root, 'examples/models/weights')
const heldOut = join(root, 'examples/data/triage-heldout.jsonl')
const run = (args) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
const made = run(['scripts/make-trained-models.mjs'])
if (made.status !== 0) throw new Error(made.stderr)

const fixture = await loadFixture()
const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
const { ggufScorer } = await import(join(root, 'dist/gguf/index.js'))
const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
const rows = readFileSync(heldOut, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
// The rotations torch-letter-probs.json was written under: options[r:] + options[:r].
const requests = rows.flatMap((d) =>
  d.criterion.options.map((_, r) => {
    const criterion = { ...d.criterion, options: [...d.criterion.options.slice(r), ...d.criterion.options.slice(0, r)] }
    return { state: d.state, criterion, prompt: buildPrompt(d.state, criterion) }
  }),
)
const torch = JSON.parse(readFileSync(join(weights, 'torch-letter-probs.json'), 'utf8'))

const argmax = (v) => v.indexOf(Math.max(...v))
function compare(got, reference) {
  let max = 0
  let same = 0
  let confident = 0
  let confidentSame = 0
  got.forEach((row, i) => {
    if (!Array.isArray(row)) throw new Error(`prompt ${i} was not scored: ${JSON.stringify(row)}`)
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

const temp = mkdtempSync(join(tmpdir(), 'sceptic-trained-'))
const lines = ['| model | engine, format | reference | max abs Δp | picks equal | picks equal, p ≥ 0.6 |', '| --- | --- | --- | --- | --- | --- |']
const quantLines = ['| model | quantize-model | clear decisions | decisions kept | per-ordering picks kept |', '| --- | --- | --- | --- | --- |']
const loadBefore = loadavg()[0]
try {
  const tokenizer = fixture.trainedTokenizer(weights)
  for (const name of fixture.TRAINED_MODELS) {
    const dir = join(root, 'examples/models', name)
    const onnx = onnxScorer({ model: dir, workers: 1 })
    const fp32 = await onnx(requests)
    await onnx.close()
    lines.push(`| ${name} | ONNX fp32 | torch | ${compare(fp32, torch.models[name].letterProbabilities)} |`)
    const decoder = fixture.trainedDecoder(weights, name)
    for (const type of ['F32', 'F16', 'Q8_0']) {
      const file = join(temp, `${name}-${type}.gguf`)
      writeFileSync(file, fixture.buildGguf(decoder, tokenizer, { type }))
      const gguf = ggufScorer({ model: file, threads: 1 })
      const out = await gguf(requests)
      await gguf.close()
      lines.push(`| ${name} | GGUF ${type} | ONNX fp32 | ${compare(out, fp32)} |`)
    }
    for (const flags of [['--format', 'int8'], ['--format', 'nbits', '--bits', '4']]) {
      const out = join(temp, `${name}-${flags.join('')}`)
      const cli = run(['dist/cli/main.js', 'quantize-model', dir, '--model-out', out, ...flags, '--calibration', heldOut, '--max-float', '0', '--force'])
      const m = /agreement with fp32 on (\d+) clear of (\d+) calibration decisions, on [^:]+: decisions ([\d.]+%), per-ordering picks ([\d.]+%)/.exec(cli.stdout)
      if (!m) throw new Error(`quantize-model ${flags.join(' ')}: ${cli.stdout}${cli.stderr}`)
      quantLines.push(`| ${name} | ${flags.join(' ')} | ${m[1]} of ${m[2]} | ${m[3]} | ${m[4]} |`)
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true })
}
console.log(`${cpus()[0]?.model ?? 'CPU'}, ${cpus().length} cores; load ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`)
console.log(`held-out set: ${rows.length} decisions × 4 rotations = ${requests.length} prompts per model\n`)
console.log(lines.join('\n'))
console.log('\nEvery MatMul quantized (--max-float 0); clear = fp32 margin >= 0.05, as quantize-model measures.\n')
console.log(quantLines.join('\n'))
