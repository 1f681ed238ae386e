#!/usr/bin/env node
// Writes the example model directory examples/models/tiny/{model.onnx,tokenizer.json}
// deterministically from the fixture generator (same source, same bytes).
// Usage: node scripts/make-model.mjs [OUT_DIR] [--qwen2]   (--qwen2: the tiny Qwen2-architecture fixture instead)
import { fileURLToPath } from 'node:url'
import { loadFixture } from './load-fixture.mjs'

const qwen2 = process.argv.includes('--qwen2')
const out = process.argv.slice(2).find((a) => a !== '--qwen2') ?? fileURLToPath(new URL('../examples/models/tiny', import.meta.url))
const fixture = await loadFixture()
fixture.writeModelDir(out, qwen2 ? fixture.QWEN2_TINY : fixture.TINY_EXAMPLE)
console.log(`wrote ${out}/model.onnx and ${out}/tokenizer.json`)
