#!/usr/bin/env node
// Writes the example model directory examples/models/tiny/{model.onnx,tokenizer.json}
// deterministically from the fixture generator (same source, same bytes).
// Usage: node scripts/make-model.mjs [OUT_DIR]
import { fileURLToPath } from 'node:url'
import { loadFixture } from './load-fixture.mjs'

const out = process.argv[2] ?? fileURLToPath(new URL('../examples/models/tiny', import.meta.url))
const fixture = await loadFixture()
fixture.writeModelDir(out, fixture.TINY_EXAMPLE)
console.log(`wrote ${out}/model.onnx and ${out}/tokenizer.json`)
