#!/usr/bin/env node
// llama.cpp's cost per token by batch size and threads, on one GGUF file (node bench/gguf-batches.bench.mjs
// FILE.gguf [--threads 1,2] [--batches 10,40,80,160,320,480] [--reps 4]).
// The GGUF scorer's settings (one sequence, F32 KV cache, flash attention off, 512-token batches), no
// readout: each rep erases the sequence and evaluates one batch of N tokens. Prints wall and CPU ms per
// token. It answers what bench:gguf cannot: how much of a row's time is the engine's floor at this
// shape, and how much the shape of the work (an ordering's ~10 own tokens are a small batch). Run it
// on bench:gguf's cached files (/tmp/sceptic-bench-models/*-gguf-*/model-Q8_0.gguf) on an idle
// machine: llama.cpp's threads spin while they wait, so other work on the cores inflates every figure.
import { parseArgs } from 'node:util'

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { threads: { type: 'string', default: '1,2' }, batches: { type: 'string', default: '10,40,80,160,320,480' }, reps: { type: 'string', default: '4' } },
})
const file = positionals[0]
if (!file) throw new Error('usage: node bench/gguf-batches.bench.mjs FILE.gguf [--threads 1,2] [--batches 10,80] [--reps 4]')
const list = (text, name) =>
  text.split(',').map((item) => {
    const value = Number(item)
    if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name}: "${item}" is not a positive integer`)
    return value
  })
const threadCounts = list(args.threads, 'threads')
const batches = list(args.batches, 'batches')
const [reps] = list(args.reps, 'reps')
if (Math.max(...batches) > 512) throw new Error('--batches: at most 512 (the scorer batch size)')

const { getLlama } = await import('node-llama-cpp')
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}
// Token ids spread over the vocabulary's common range, different per rep: no two reps share a prefix.
const tokens = (n, seed) => Array.from({ length: n }, (_, i) => 1000 + ((seed * 7919 + i * 104729) % 50000))
console.log(`${file}: ${reps} reps per batch size`)
console.log('threads  batch  wall ms/token  CPU ms/token')
for (const threads of threadCounts) {
  const llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, progressLogs: false, maxThreads: threads, logger: () => {} })
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 })
  const context = await model.createContext({ sequences: 1, contextSize: 1024, batchSize: 512, threads, flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' })
  const sequence = context.getSequence()
  const clear = () => sequence.eraseContextTokenRanges([{ start: 0, end: sequence.nextTokenIndex }])
  await sequence.controlledEvaluate(tokens(16, 99)) // warm-up
  for (const n of batches) {
    const cpu0 = cpuSeconds()
    const t0 = performance.now()
    for (let rep = 0; rep < reps; rep++) {
      await clear()
      await sequence.controlledEvaluate(tokens(n, rep))
    }
    const wall = (performance.now() - t0) / (reps * n)
    const cpu = (1000 * (cpuSeconds() - cpu0)) / (reps * n)
    console.log(`${String(threads).padStart(7)}  ${String(n).padStart(5)}  ${wall.toFixed(2).padStart(13)}  ${cpu.toFixed(2).padStart(12)}`)
  }
  await context.dispose()
  await model.dispose()
  await llama.dispose()
}
