#!/usr/bin/env node
// node-llama-cpp's native decide() against the letter readout of the same GGUF file
// (npm run bench:gguf-decide [-- --models reader,biased --data examples/data/triage-heldout.jsonl --threads 1]).
// The project's trained models (npm run make-trained-models) score the held-out decisions under
// `cyclic` with ggufScorer (letters) and ggufDecisionScorer (chatWrapper 'auto': decide()'s own
// chat prompt; 'plain': no chat turns), each after its startup. Per row: balanced accuracy, order
// consistency, the share of per-ordering picks on the first option shown, CPU ms per decision;
// then, for each decide row, its agreement with the letters: the share of final predictions equal,
// of per-ordering picks equal (as option ids), and the largest and mean |Δp| of the records'
// probabilities (the same option ids; the prompts differ, so |Δp| says how far apart, not an error).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: 'reader,biased' },
    data: { type: 'string', default: join(root, 'examples/data/triage-heldout.jsonl') },
    threads: { type: 'string', default: '1' },
  },
})
const { evaluateWithScorer, loadDecisions } = await import(join(root, 'dist/index.js'))
const { ggufScorer, ggufDecisionScorer } = await import(join(root, 'dist/gguf/index.js'))
const decisions = await loadDecisions(args.data)
const threads = Number(args.threads)

async function measure(scorer) {
  await scorer.ready()
  const before = process.cpuUsage()
  const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic', statistics: false })
  const cpu = process.cpuUsage(before)
  await scorer.close()
  const picks = result.records.flatMap((r) => r.letters)
  return { result, cpuMs: (cpu.user + cpu.system) / 1000 / result.records.length, firstShown: picks.filter((l) => l === 'A').length / picks.length }
}

function agreement(a, b) {
  let equal = 0, pickEqual = 0, picks = 0, max = 0, sum = 0, count = 0
  a.records.forEach((r, i) => {
    const s = b.records[i]
    if (r.prediction === s.prediction) equal++
    r.picks.forEach((p, k) => { picks++; if (p === s.picks[k]) pickEqual++ })
    for (const [id, p] of Object.entries(r.probabilities)) { const d = Math.abs(p - s.probabilities[id]); max = Math.max(max, d); sum += d; count++ }
  })
  return { predictions: equal / a.records.length, picks: pickEqual / picks, maxDp: max, meanDp: sum / count }
}

const f = (x, d = 3) => x === null || x === undefined ? 'n/a' : x.toFixed(d)
console.log(`${decisions.length} decisions from ${args.data}, cyclic, ${threads} thread(s)`)
console.log('| model | readout | balanced accuracy | order consistency | picks on first shown | CPU ms / decision | predictions = letters | picks = letters | max / mean abs dp vs letters |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const name of args.models.split(',')) {
  const model = join(root, `examples/models/${name}.gguf`)
  if (!existsSync(model)) throw new Error(`${model} is missing: npm run make-trained-models`)
  const letters = await measure(ggufScorer({ model, threads }))
  const row = (label, m, vs) => console.log(`| ${name} | ${label} | ${f(m.result.balancedAccuracy)} | ${f(m.result.orderConsistency)} | ${f(m.firstShown)} | ${f(m.cpuMs, 2)} | ${vs ? f(vs.predictions) : '—'} | ${vs ? f(vs.picks) : '—'} | ${vs ? `${f(vs.maxDp)} / ${f(vs.meanDp)}` : '—'} |`)
  row('letters (ggufScorer)', letters)
  for (const chatWrapper of ['auto', 'plain']) {
    const decided = await measure(ggufDecisionScorer({ model, threads, chatWrapper }))
    row(`decide, chatWrapper '${chatWrapper}'`, decided, agreement(decided.result, letters.result))
  }
}
