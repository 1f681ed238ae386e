// The ONNX fixture model behind a counting wrapper, for bench/cache.bench.mjs: every
// call appends its request count to $SCEPTIC_BENCH_COUNTER, so scorer calls are counted
// in runs that are killed too. `cacheKey` lets the CLI cache it like a user scorer.
import { appendFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { onnxScorer } from '../dist/onnx/index.js'

const model = fileURLToPath(new URL('../examples/models/tiny', import.meta.url))
const scorer = onnxScorer({ model, workers: 1 })

export const cacheKey = 'bench: examples/models/tiny, fp32'

export default async function countingScorer(requests) {
  appendFileSync(process.env.SCEPTIC_BENCH_COUNTER, `${requests.length}\n`)
  return scorer(requests)
}

export const close = () => scorer.close()
