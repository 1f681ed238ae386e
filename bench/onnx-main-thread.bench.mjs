#!/usr/bin/env node
// Main-thread time of the ONNX scorer (npm run bench:onnx, part 5; alone: node
// bench/onnx-main-thread.bench.mjs after npm run build). The main thread should only plan
// runs and aggregate results; tokenizing and inference belong to the workers. Measured
// with the event loop's own accounting (performance.eventLoopUtilization: time the main
// thread spent running JavaScript, not waiting), over the scorer's calls alone: requests
// are built beforehand, so the evaluator's own work is not counted.
// Prompts: cyclic orderings of 4-option decisions of ~1000 characters (the
// fixture BPE tokenizer, ~460 tokens each), on a small generated decoder so inference is
// short and the main thread's share is visible.
// Options: --decisions N (default 64), --rounds N (default 5), --hidden N (default 64).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadFixture } from '../scripts/load-fixture.mjs'
import { makeBenchDecisions } from './decisions.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

export async function mainThreadBench({ decisions: count = 64, rounds = 5, hidden = 64 } = {}) {
  const fixture = await loadFixture()
  const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const { onnxScorer } = await import(join(root, 'dist/onnx/index.js'))
  const dir = mkdtempSync(join(tmpdir(), 'sceptic-main-thread-bench-'))
  try {
    fixture.writeModelDir(dir, { tokenizer: 'bpe', decoder: { hidden, layers: 2, heads: 4, ffn: hidden * 4, maxPositions: 1024, seed: 3 } })
    const { decisions, promptTokens } = await makeBenchDecisions(dir, count, { tokens: 460, measure: 'prompt' })
    // Every cyclic ordering of every decision, as the evaluator sends them.
    const requests = decisions.flatMap((d) =>
      d.criterion.options.map((_, shift) => {
        const options = d.criterion.options.map((__, i) => d.criterion.options[(i + shift) % d.criterion.options.length])
        const criterion = { ...d.criterion, options }
        return { state: d.state, criterion, prompt: buildPrompt(d.state, criterion) }
      }),
    )
    const chars = requests.reduce((sum, r) => sum + r.prompt.length, 0) / requests.length
    const scorer = onnxScorer({ model: dir })
    await scorer.ready()
    await scorer(requests.slice(0, 8)) // warm-up
    console.log(`${count} decisions x 4 orderings = ${requests.length} prompts of ~${chars.toFixed(0)} characters (~${promptTokens.toFixed(0)} tokens); hidden ${hidden}, 2 layers; ${scorer.description}`)
    console.log('round  wall ms  main-thread busy ms  share  busy µs/prompt')
    const shares = []
    const perPrompt = []
    for (let r = 0; r < rounds; r++) {
      const before = performance.eventLoopUtilization()
      const t0 = performance.now()
      await scorer(requests)
      const wall = performance.now() - t0
      const { active } = performance.eventLoopUtilization(before)
      shares.push(active / wall)
      perPrompt.push((1000 * active) / requests.length)
      console.log(`${String(r + 1).padStart(5)}  ${wall.toFixed(0).padStart(7)}  ${active.toFixed(1).padStart(19)}  ${((100 * active) / wall).toFixed(1).padStart(4)}%  ${((1000 * active) / requests.length).toFixed(0).padStart(14)}`)
    }
    await scorer.close()
    const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]
    console.log(`median: main thread busy ${(100 * median(shares)).toFixed(1)}% of the call, ${median(perPrompt).toFixed(0)} µs per prompt`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const { values: args } = parseArgs({ options: { decisions: { type: 'string', default: '64' }, rounds: { type: 'string', default: '5' }, hidden: { type: 'string', default: '64' } }, strict: false })
if (import.meta.url === `file://${process.argv[1]}`) await mainThreadBench({ decisions: Number(args.decisions), rounds: Number(args.rounds), hidden: Number(args.hidden) })
