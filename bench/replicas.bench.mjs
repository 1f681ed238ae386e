#!/usr/bin/env node
// Replicas side by side (npm run bench:replicas): one replica, replicas behind one router URL, and
// the scorer's own affinity over several URLs, in one run (bench/replicas.mjs). Exits 1 when a
// target is missed or the records differ from one replica's.
const { openAIScorer } = await import(new URL('../dist/http/index.js', import.meta.url).href)
const { evaluateWithScorer, recordsToJsonl } = await import(new URL('../dist/core/index.js', import.meta.url).href)
const { benchReplicas } = await import('./replicas.mjs')
process.exitCode = (await benchReplicas({ openAIScorer, evaluateWithScorer, recordsToJsonl })) ? 0 : 1
