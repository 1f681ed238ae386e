#!/usr/bin/env node
// GGUF against ONNX, side by side (npm run bench:gguf [-- --shape small|qwen2.5-0.5b --decisions N --prompt-tokens N --rows 'a;b'
// --head-scale X --attention-sharpness X]).
// One generated Qwen2 model written as an ONNX fp32 directory, an ONNX int8 one (`sceptic quantize-model
// --format int8`) and GGUF files of the same weights (read back from the ONNX model). At qwen2.5-0.5b
// (the default) it is bench/onnx-qwen.bench.mjs's model and cache: hidden 896, 24 layers, 14/2 heads,
// SwiGLU 4864, vocab 151936, tied head, the Qwen3 tokenizer; the GGUF files are
// cached next to it, keyed by the GGUF writer's source. At small: the fixture's 64-wide model and
// tokenizer, in a temporary folder. --head-scale (final-norm gain) and --attention-sharpness set the
// random weights (defaults 8 and 3 at qwen2.5-0.5b: bench:onnx's chaotic model B; 4 and 3 at small);
// `--head-scale 2 --attention-sharpness 1` is docs/performance.md's model A. Each setting has its own
// cached ONNX, int8 and GGUF models. The same decisions (cyclic, 4 options, prompts of at least
// --prompt-tokens tokens, default 80: the scoring time grows with them) are scored by each row, each
// in its own child process: scoring and CPU seconds, tokens evaluated (GGUF: against the minimum),
// agreement with ONNX fp32 (its clear decisions, margin >= 0.05, and their per-ordering picks), the
// largest |Δp| and the child's peak RSS. Then the goals, each PASS or MISS from this run's figures.
// The machine is shared: the load average before and after is printed with the table.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

process.env.ORT_DISABLE_TELEMETRY ??= '1'
const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'qwen2.5-0.5b' },
    decisions: { type: 'string', default: '100' },
    rows: { type: 'string' },
    'prompt-tokens': { type: 'string', default: '80' },
    'head-scale': { type: 'string' },
    'attention-sharpness': { type: 'string' },
    child: { type: 'string' },
    model: { type: 'string' },
    options: { type: 'string', default: '{}' },
    out: { type: 'string' },
    data: { type: 'string' },
  },
})

// The rows: ONNX ones score a model directory, GGUF ones a file of the writer's `type`/`embeddingType` with scorer `options`.
// "llama.cpp defaults" is node-llama-cpp's context defaults: F16 KV cache, flash attention ("auto": on for the CPU), 512-token batches, 4 threads on this 2-core machine.
const ROWS = {
  'onnx fp32': { onnx: 'fp32' },
  'onnx int8': { onnx: 'int8' },
  // fp32 against itself with other threads: how far float rounding alone moves this model's probabilities.
  'onnx fp32, 1 worker x 2 threads': { onnx: 'fp32', options: { workers: 1, threadsPerWorker: 2 } },
  'gguf F32': { gguf: { type: 'F32' } },
  'gguf F32, F16 KV + flash attn': { gguf: { type: 'F32' }, options: { kvCacheType: 'F16', flashAttention: true } },
  'gguf F32, llama.cpp defaults': { gguf: { type: 'F32' }, options: { kvCacheType: 'F16', flashAttention: true, threads: 4 } },
  'gguf F16': { gguf: { type: 'F16' } },
  'gguf Q8_0': { gguf: { type: 'Q8_0' } },
  'gguf Q8_0, 4 sequences': { gguf: { type: 'Q8_0' }, options: { sequences: 4 } },
  'gguf Q8_0, 8 sequences': { gguf: { type: 'Q8_0' }, options: { sequences: 8 } },
  'gguf Q8_0, 2 threads x 4 sequences': { gguf: { type: 'Q8_0' }, options: { threads: 2, sequences: 4 } },
  'gguf Q8_0, F32 embd/head, 4 sequences': { gguf: { type: 'Q8_0', embeddingType: 'F32' }, options: { sequences: 4 } },
  'gguf F16, 4 sequences': { gguf: { type: 'F16' }, options: { sequences: 4 } },
  'gguf F16, 2 threads x 4 sequences': { gguf: { type: 'F16' }, options: { threads: 2, sequences: 4 } },
  'gguf F32, 4 sequences': { gguf: { type: 'F32' }, options: { sequences: 4 } },
  'gguf Q8_0, F16 embd/head': { gguf: { type: 'Q8_0', embeddingType: 'F16' } },
  'gguf Q8_0, F32 embd/head': { gguf: { type: 'Q8_0', embeddingType: 'F32' } },
}
const DEFAULT_ROWS = ['onnx fp32', 'gguf F32', 'gguf Q8_0', 'onnx int8', 'gguf Q8_0, F32 embd/head', 'gguf F32, F16 KV + flash attn', 'onnx fp32, 1 worker x 2 threads']

if (args.child) {
  // One scorer, one process: its RSS and CPU time are its own.
  const decisions = JSON.parse(readFileSync(args.data, 'utf8'))
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  const scorer =
    args.child === 'gguf'
      ? (await import(join(root, 'dist/gguf/index.js'))).ggufScorer({ model: args.model, ...JSON.parse(args.options) })
      : (await import(join(root, 'dist/onnx/index.js'))).onnxScorer({ model: args.model, ...JSON.parse(args.options) })
  await scorer.ready()
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic' })
  const seconds = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  const stats = scorer.stats
  await scorer.close()
  const out = { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, records: result.records, tokens: stats.tokensEvaluated ?? stats.tokensRun, minimum: stats.minimumTokens, rss: process.resourceUsage().maxRSS * 1024 }
  writeFileSync(args.out, JSON.stringify(out))
  process.exit(0)
}

const { loadFixture, loadTypeScript } = await import('../scripts/load-fixture.mjs')
const { makeBenchDecisions } = await import('./decisions.mjs')
const { SHAPES, modelDir, quantized, sourcesHash } = await import('./onnx-qwen.bench.mjs')
const gguf = await loadTypeScript('scripts/onnx-fixture/gguf.ts', 'gguf')
const { agreement } = await loadTypeScript('src/scorers/onnx/transform/calibrate.ts', 'calibrate')
const rowNames = args.rows ? args.rows.split(';').map((r) => r.trim()) : DEFAULT_ROWS
for (const name of rowNames) if (!ROWS[name]) throw new Error(`--rows: unknown row "${name}"; rows: ${Object.keys(ROWS).join(' | ')}`)
if (rowNames[0] !== 'onnx fp32') throw new Error('--rows: the first row must be "onnx fp32" (the reference)')
if (!['small', 'qwen2.5-0.5b'].includes(args.shape)) throw new Error('--shape: small or qwen2.5-0.5b')
const setting = (name) => {
  if (args[name] === undefined) return undefined
  const value = Number(args[name])
  if (!(value > 0)) throw new Error(`--${name}: a positive number, not "${args[name]}"`)
  return value
}
const randomModel = { headScale: setting('head-scale'), attentionSharpness: setting('attention-sharpness') }

const load = [loadavg()[0]]
const scratch = mkdtempSync(join(tmpdir(), 'sceptic-gguf-bench-'))
try {
  const t0 = performance.now()
  const { dir, decoder, tokenizer, pre, ggufDir } = await models(args.shape)
  const int8 = rowNames.includes('onnx int8') ? int8Model(dir) : undefined
  const ggufFile = ({ type, embeddingType }) => {
    const file = join(ggufDir, `model-${type}${embeddingType ? `-embd-${embeddingType}` : ''}.gguf`)
    if (!existsSync(file)) {
      mkdirSync(ggufDir, { recursive: true })
      gguf.writeGgufFromOnnx(`${file}.partial-${process.pid}`, join(dir, 'onnx', 'model.onnx'), decoder, tokenizer, { type, embeddingType, pre })
      renameSync(`${file}.partial-${process.pid}`, file)
    }
    return file
  }
  const variants = rowNames.map((name) => ({ name, ...ROWS[name], model: ROWS[name].onnx ? (ROWS[name].onnx === 'int8' ? int8 : dir) : ggufFile(ROWS[name].gguf) }))
  console.log(`models ready in ${((performance.now() - t0) / 1000).toFixed(0)} s (${dir})`)
  const { decisions, promptTokens } = await makeBenchDecisions(dir, Number(args.decisions), { tokens: Number(args['prompt-tokens']), measure: 'prompt' })
  writeFileSync(join(scratch, 'data.json'), JSON.stringify(decisions))
  const done = []
  let cut = false
  for (const variant of variants) {
    const out = join(scratch, 'row.json')
    const childArgs = ['--child', variant.gguf ? 'gguf' : 'onnx', '--model', variant.model, '--options', JSON.stringify(variant.options ?? {}), '--out', out, '--data', join(scratch, 'data.json')]
    // The child inherits this process's niceness (run the bench under nice: the rows stay comparable).
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...childArgs], { stdio: 'inherit' })
    if (run.status !== 0) {
      // A child stopped (out of time, killed): the table of the rows that ended, and a failing exit.
      console.log(`  ${variant.name}: the child failed (${run.signal ?? `exit ${run.status}`}); no further rows`)
      cut = true
      break
    }
    const row = { ...variant, ...JSON.parse(readFileSync(out, 'utf8')), load: loadavg()[0] }
    done.push(row)
    const a = agreement(done[0].records, row.records)
    // Each row as it ends: a run cut short still says what it measured.
    console.log(`  ${variant.name}: ${row.seconds.toFixed(1)} s, ${row.cpuSeconds.toFixed(1)} CPU s, kept ${(100 * a.decisions).toFixed(1)}% / ${(100 * a.picks).toFixed(1)}%, max |dp| ${maxDelta(done[0], row).toExponential(1)} (load average ${row.load.toFixed(1)})`)
  }
  load.push(loadavg()[0])
  if (done.length > 0) report(done, decoder, decisions.length, promptTokens, load)
  if (cut) {
    console.log(`INCOMPLETE: ${done.length} of ${variants.length} rows ran`)
    process.exitCode = 1
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

/** The ONNX model directory, its decoder options and tokenizer, and where its GGUF twins go. */
async function models(shape) {
  const writer = createHash('sha256').update(readFileSync(join(root, 'scripts/onnx-fixture/gguf.ts'))).digest('hex').slice(0, 12)
  if (shape === 'small') {
    const fixture = await loadFixture()
    const tokenizer = fixture.bpeTokenizer({ merges: 200 })
    const decoder = { architecture: 'qwen2', hidden: 64, layers: 2, heads: 4, kvHeads: 2, ffn: 128, seed: 11, headScale: randomModel.headScale ?? 4, attentionSharpness: randomModel.attentionSharpness ?? 3, maxPositions: 1024, vocab: fixture.tokenizerVocabSize(tokenizer) }
    const dir = join(scratch, 'small')
    fixture.writeModelDir(dir, { tokenizer, decoder, nested: true })
    return { dir, decoder, tokenizer, pre: 'gpt-2', ggufDir: join(scratch, 'gguf') }
  }
  // bench/onnx-qwen.bench.mjs's model and cache (its defaults: final-norm gain 8, the shape's attention sharpness); keyed by both.
  const base = SHAPES[shape]
  const decoder = { ...base, attentionSharpness: randomModel.attentionSharpness ?? base.attentionSharpness, headScale: randomModel.headScale ?? 8 }
  const { dir } = await modelDir(shape, decoder)
  return { dir, decoder, tokenizer: JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), pre: 'qwen2', ggufDir: `${dir}-gguf-${writer}` }
}

/** `sceptic quantize-model --format int8` of `dir`, cached beside it as bench/onnx-qwen.bench.mjs caches it. */
function int8Model(dir) {
  if (dir.startsWith(scratch)) {
    const out = join(scratch, 'int8')
    const made = spawnSync(process.execPath, [join(root, 'dist/cli/main.js'), 'quantize-model', dir, '--model-out', out, '--format', 'int8'], { encoding: 'utf8' })
    if (made.status !== 0) throw new Error(`quantize-model: ${made.stderr}`)
    return out
  }
  return quantized(dir, 'int8', ['--format', 'int8'], sourcesHash('src/scorers/onnx/transform').digest('hex').slice(0, 12)).out
}

/** The table, the parity line and the goals. */
function report(rows, decoder, count, promptTokens, load) {
  const [fp32] = rows
  console.log(`\nshape ${args.shape}, final-norm gain ${decoder.headScale}, attention sharpness ${decoder.attentionSharpness}: ${count} decisions x 4 orderings (cyclic), prompts of ${promptTokens.toFixed(0)} tokens on average; load average ${load.map((l) => l.toFixed(1)).join(' -> ')} on ${readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? '?'} cores`)
  const header = ['scorer', 'scoring s', 'x onnx fp32', 'CPU s', 'tokens (min)', 'clear kept', 'picks kept', 'max |dp|', 'peak RSS']
  const cells = rows.map((row) => {
    const a = agreement(fp32.records, row.records)
    Object.assign(row, { agreement: a, maxDelta: maxDelta(fp32, row), speed: fp32.seconds / row.seconds })
    return [row.name, row.seconds.toFixed(1), `${row.speed.toFixed(2)}x`, row.cpuSeconds.toFixed(1), `${row.tokens}${row.minimum ? ` (${row.minimum})` : ''}`, `${(100 * a.decisions).toFixed(1)}%`, `${(100 * a.picks).toFixed(1)}%`, row.maxDelta.toExponential(1), `${(row.rss / 2 ** 20).toFixed(0)} MiB`]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)))
  const line = (c) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ')
  console.log(line(header))
  for (const c of cells) console.log(line(c))
  const clear = fp32.agreement.clear
  console.log(`clear: ONNX fp32's two likeliest options >= 0.05 apart (${clear} of ${count}); kept: the same final pick, and the same pick per ordering, on those; tokens: llama.cpp evaluated (the minimum: each distinct prefix once) or ONNX run`)
  const verdict = (ok) => (ok ? 'PASS' : 'MISS')
  const f32 = rows.find((r) => r.name === 'gguf F32')
  if (f32) {
    const same = fp32.records.filter((r, i) => r.prediction === f32.records[i].prediction).length
    const orderings = fp32.records.reduce((n, r) => n + r.picks.length, 0)
    const samePicks = fp32.records.reduce((n, r, i) => n + r.picks.filter((p, k) => p === f32.records[i].picks[k]).length, 0)
    console.log(`parity, GGUF F32 vs ONNX fp32: max |dp| ${f32.maxDelta.toExponential(1)}; picks equal ${same}/${count} decisions, ${samePicks}/${orderings} orderings; tokens evaluated ${f32.tokens} vs minimum ${f32.minimum}`)
    console.log(`  ${verdict(f32.maxDelta <= 1e-4)} max |dp| <= 1e-4   ${verdict(same === count && count >= 100)} same picks on >= 100 decisions (${same}/${count})`)
  }
  for (const row of rows.filter((r) => r.gguf && r.gguf.type !== 'F32'))
    console.log(
      `goals, ${row.name}: ${verdict(row.agreement.decisions >= 0.98)} clear decisions kept >= 98% (${(100 * row.agreement.decisions).toFixed(1)}%)   ${verdict(row.agreement.picks >= 0.97)} picks kept >= 97% (${(100 * row.agreement.picks).toFixed(1)}%)   ${verdict(row.speed >= 2)} >= 2x ONNX fp32's scoring speed (${row.speed.toFixed(2)}x)`,
    )
}

/** Largest |Δp| between two runs' records. */
function maxDelta(base, row) {
  return Math.max(...base.records.flatMap((r, i) => Object.entries(r.probabilities).map(([k, p]) => Math.abs(p - row.records[i].probabilities[k]))))
}
