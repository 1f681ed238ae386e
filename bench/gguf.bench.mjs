#!/usr/bin/env node
// GGUF against ONNX, side by side (npm run bench:gguf [-- --shape small|qwen2.5-0.5b --decisions N]).
// One generated Qwen2 model (the fixture generator's weights and its byte-level BPE tokenizer; at
// qwen2.5-0.5b: hidden 896, 24 layers, 14/2 heads, SwiGLU 4864, vocab 151936, tied head) written as
// an ONNX fp32 directory, an ONNX int8 one (`sceptic quantize-model --format int8`) and GGUF F32 and
// Q8_0 files. The same decisions (cyclic, 4 options) are scored by each, each in its own child
// process: scoring seconds, tokens run, agreement with ONNX fp32 (its clear decisions, margin ≥ 0.05,
// and their per-ordering picks), the largest |Δp| and the child's peak RSS. The machine is shared:
// the load average at the start and the end is printed with the table.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({ options: { shape: { type: 'string', default: 'qwen2.5-0.5b' }, decisions: { type: 'string', default: '100' }, child: { type: 'string' }, model: { type: 'string' }, out: { type: 'string' }, data: { type: 'string' } } })

const SHAPES = {
  small: { architecture: 'qwen2', hidden: 64, layers: 2, heads: 4, kvHeads: 2, ffn: 128, seed: 11, headScale: 4, attentionSharpness: 3, maxPositions: 1024 },
  'qwen2.5-0.5b': { architecture: 'qwen2', hidden: 896, layers: 24, heads: 14, kvHeads: 2, ffn: 4864, vocab: 151936, maxPositions: 32768, seed: 3, headScale: 8, attentionSharpness: 3 },
}

if (args.child) {
  // One scorer, one process: its RSS is its own.
  const decisions = JSON.parse(readFileSync(args.data, 'utf8'))
  const { evaluateWithScorer } = await import(join(root, 'dist/core/index.js'))
  const scorer = args.child.startsWith('gguf')
    ? (await import(join(root, 'dist/gguf/index.js'))).ggufScorer({ model: args.model })
    : (await import(join(root, 'dist/onnx/index.js'))).onnxScorer({ model: args.model })
  await scorer.ready()
  const t0 = performance.now()
  const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic' })
  const seconds = (performance.now() - t0) / 1000
  const stats = scorer.stats
  await scorer.close()
  writeFileSync(args.out, JSON.stringify({ seconds, records: result.records, tokens: stats.tokensEvaluated ?? stats.tokensRun, rss: process.resourceUsage().maxRSS * 1024 }))
  process.exit(0)
}

const { loadFixture } = await import('../scripts/load-fixture.mjs')
const fixture = await loadFixture()
const shape = SHAPES[args.shape]
if (!shape) throw new Error(`--shape: one of ${Object.keys(SHAPES).join(', ')}`)
const load = [loadavg()[0]]
const dir = mkdtempSync(join(tmpdir(), 'sceptic-gguf-bench-'))
try {
  const tokenizer = fixture.bpeTokenizer({ merges: 200 })
  const decoder = { ...shape, vocab: shape.vocab ?? fixture.tokenizerVocabSize(tokenizer) }
  const t0 = performance.now()
  fixture.writeModelDir(join(dir, 'onnx'), { tokenizer, decoder, ...(decoder.hidden >= 512 ? { nested: true, externalDataMinBytes: 1024 } : {}) })
  for (const type of ['F32', 'Q8_0']) writeFileSync(join(dir, `model-${type}.gguf`), fixture.buildGguf(decoder, tokenizer, { type }))
  const quantized = spawnSync(process.execPath, [join(root, 'dist/cli/main.js'), 'quantize-model', join(dir, 'onnx'), '--model-out', join(dir, 'int8'), '--format', 'int8'], { stdio: 'inherit' })
  console.log(`models written in ${((performance.now() - t0) / 1000).toFixed(0)} s (${dir})`)
  const decisions = makeDecisions(Number(args.decisions))
  writeFileSync(join(dir, 'data.json'), JSON.stringify(decisions))
  const variants = [
    ['onnx fp32', join(dir, 'onnx')],
    ...(quantized.status === 0 ? [['onnx int8', join(dir, 'int8')]] : []),
    ['gguf F32', join(dir, 'model-F32.gguf')],
    ['gguf Q8_0', join(dir, 'model-Q8_0.gguf')],
  ]
  const rows = variants.map(([name, model]) => {
    const out = join(dir, `${name.replace(' ', '-')}.json`)
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', name.replace(' ', '-'), '--model', model, '--out', out, '--data', join(dir, 'data.json')], { stdio: 'inherit' })
    if (run.status !== 0) throw new Error(`${name}: the child failed`)
    return { name, ...JSON.parse(readFileSync(out, 'utf8')) }
  })
  load.push(loadavg()[0])
  const base = rows[0]
  console.log(`\nshape ${args.shape}: ${decisions.length} decisions × 4 orderings (cyclic); load average ${load.map((l) => l.toFixed(1)).join(' → ')} on this machine`)
  console.log('scorer        seconds  × onnx fp32  tokens   clear kept  picks kept  max |Δp|   peak RSS')
  for (const row of rows) {
    const a = agreement(base.records, row.records)
    const maxDp = Math.max(...base.records.flatMap((r, i) => Object.entries(r.probabilities).map(([k, p]) => Math.abs(p - row.records[i].probabilities[k]))))
    console.log(
      `${row.name.padEnd(12)} ${row.seconds.toFixed(2).padStart(8)}  ${(base.seconds / row.seconds).toFixed(2).padStart(10)}  ${String(row.tokens).padStart(6)}  ${(a.decisions * 100).toFixed(1).padStart(9)}%  ${(a.picks * 100).toFixed(1).padStart(9)}%  ${maxDp.toExponential(1).padStart(8)}  ${(row.rss / 2 ** 20).toFixed(0).padStart(6)} MiB`,
    )
  }
  console.log(`(clear: ONNX fp32's two likeliest options ≥ 0.05 apart; ${agreement(base.records, base.records).clear} of ${decisions.length})`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/** Agreement with fp32 on fp32's clear decisions (margin ≥ 0.05): the decisions and their per-ordering picks. */
function agreement(fp32, candidate) {
  let clear = 0
  let same = 0
  let picks = 0
  let samePicks = 0
  fp32.forEach((base, i) => {
    const p = Object.values(base.probabilities).sort((a, b) => b - a)
    if ((p[0] ?? 0) - (p[1] ?? 0) < 0.05) return
    clear++
    if (candidate[i].prediction === base.prediction) same++
    base.picks.forEach((pick, k) => (picks++, pick === candidate[i].picks[k] && samePicks++))
  })
  return { decisions: clear === 0 ? 1 : same / clear, picks: picks === 0 ? 1 : samePicks / picks, clear }
}

function makeDecisions(n) {
  const subjects = ['The invoice', 'The app', 'A user', 'The shipment', 'My subscription', 'The password reset email', 'The settings page', 'The order', 'The refund', 'The box']
  const events = ['was charged twice', 'crashes after the latest update', 'cannot log in', 'is stuck at customs', 'should be cancelled', 'never arrives', 'does not open', 'arrived late and damaged', 'has not been paid', 'was sent to the wrong address']
  const options = [
    { id: 'billing', text: 'Billing' },
    { id: 'tech', text: 'Technical support' },
    { id: 'account', text: 'Account access' },
    { id: 'sales', text: 'Sales' },
  ]
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `${subjects[i % 10]} ${events[Math.floor(i / 10) % 10]}${i >= 100 ? ` (ticket ${i})` : ''}.`,
    criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options },
    answer_id: options[i % 4].id,
  }))
}
