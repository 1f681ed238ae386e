#!/usr/bin/env node
// Decision-model scorer cost (npm run bench:decide): decisionModelScorer over the real
// @ai-sdk/openai provider against the simulated OpenAI Decisions server on 127.0.0.1
// (test/helpers/fake-decisions.mjs), which answers each call after --latency-ms (a hosted
// API's round trip). Evaluates --decisions decisions of 4 options under cyclic debias
// (4 orderings each), with and without batch: 'state', and prints calls and wall time per decision.
import { parseArgs } from 'node:util'
import { createOpenAI } from '@ai-sdk/openai'
import { biased, startFakeDecisions } from '../test/helpers/fake-decisions.mjs'

const { values: args } = parseArgs({
  options: { decisions: { type: 'string', default: '200' }, 'latency-ms': { type: 'string', default: '40' }, concurrency: { type: 'string', default: '8' } },
})
const N = Number(args.decisions)
const latency = Number(args['latency-ms'])
const concurrency = Number(args.concurrency)
const { decisionModelScorer } = await import(new URL('../dist/ai/index.js', import.meta.url).href)
const { evaluateWithScorer } = await import(new URL('../dist/core/index.js', import.meta.url).href)

const options = ['Billing', 'Technical support', 'Account', 'Shipping'].map((text, i) => ({ id: `o${i}`, text }))
const data = Array.from({ length: N }, (_, d) => ({
  id: `d${d}`,
  state: `Ticket ${d}: please route this to ${options[d % 4].text}.`,
  criterion: { key: 'queue', question: 'Which queue?', options },
  answer_id: options[d % 4].id,
}))

const server = await startFakeDecisions({ decide: biased(0.55), behave: () => ({ delay: latency }) })
const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-bench-local' }).decisionModel('gpt-6-luna')
console.log(`bench:decide  ${N} decisions × 4 orderings (cyclic), server latency ${latency} ms, concurrency ${concurrency}`)
const rows = []
for (const batch of [false, 'state']) {
  const before = server.calls
  const score = decisionModelScorer(model, { concurrency, maxRetries: 0, ...(batch ? { batch } : {}) })
  const started = performance.now()
  const result = await evaluateWithScorer(data, score, { debias: 'cyclic', statistics: false })
  const ms = performance.now() - started
  const calls = server.calls - before
  const { inputTokens, outputTokens } = score.stats()
  rows.push({ batch: batch || 'off', calls, ms, result, inputTokens, outputTokens })
  console.log(
    `batch ${String(batch || 'off').padEnd(5)}  calls ${String(calls).padStart(5)} (${(calls / N).toFixed(2)}/decision)  ` +
      `wall ${(ms / 1000).toFixed(2)} s (${(ms / N).toFixed(2)} ms/decision)  tokens in ${inputTokens} out ${outputTokens}  order consistency ${result.orderConsistency}`,
  )
}
const [off, state] = rows
console.log(`batch 'state': ${(off.calls / state.calls).toFixed(1)}× fewer calls, ${(off.ms / state.ms).toFixed(1)}× faster; same records: ${JSON.stringify(off.result.records) === JSON.stringify(state.result.records)}`)
await server.close()
