#!/usr/bin/env node
// Writes the trained example models from their committed weights (examples/models/weights,
// made by scripts/train/train.py): examples/models/{reader,biased}/ (model.onnx, tokenizer.json,
// config.json: Optimum-style ONNX directories), examples/models/{reader,biased}.gguf (F32) beside
// {reader,biased}-f16.gguf and {reader,biased}-q8_0.gguf, and examples/models/transformers-js/
// {reader,biased}/ (the layout transformers.js loads: onnx/model.onnx, config.json,
// tokenizer.json, tokenizer_config.json), all by the project's own writers
// (scripts/onnx-fixture). Deterministic: same weights, same
// bytes. Checks the weights against SHA256SUMS first; skips the work when a stamp says the
// outputs were written from these weights by these writers. `npm run eval` runs it.
// Usage: node scripts/make-trained-models.mjs [--force] [WEIGHTS_DIR [OUT_DIR]]
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadFixture } from './load-fixture.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2).filter((a) => a !== '--force')
const weights = args[0] ?? join(root, 'examples', 'models', 'weights')
const models = args[1] ?? join(root, 'examples', 'models')
const writers = join(root, 'scripts', 'onnx-fixture')

// The stamp: the weights' manifest and the writers' sources (a change to either rewrites).
const hash = createHash('sha256').update(readFileSync(join(weights, 'SHA256SUMS')))
for (const file of readdirSync(writers).sort()) hash.update(file).update(readFileSync(join(writers, file)))
hash.update(readFileSync(fileURLToPath(import.meta.url)))
const stamp = hash.digest('hex')
const stampFile = join(models, '.trained-stamp')
const names = ['reader', 'biased']
// Each GGUF storage type and the file it goes to (llama.cpp's names: F32 unsuffixed, as the demo uses it).
const ggufFiles = { F32: '', F16: '-f16', Q8_0: '-q8_0' }
const transformersJs = join(models, 'transformers-js')
const outputs = (n) => [join(models, n, 'model.onnx'), join(transformersJs, n, 'onnx', 'model.onnx'), ...Object.values(ggufFiles).map((suffix) => join(models, `${n}${suffix}.gguf`))]
const present = names.every((n) => outputs(n).every((file) => existsSync(file)))
if (!process.argv.includes('--force') && present && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === stamp) process.exit(0)

const fixture = await loadFixture()
fixture.verifyManifest(weights)
const tokenizer = fixture.trainedTokenizer(weights)
for (const name of names) {
  const decoder = fixture.trainedDecoder(weights, name)
  const dir = join(models, name)
  mkdirSync(dir, { recursive: true })
  fixture.writeModelDir(dir, { tokenizer, decoder })
  const tjs = fixture.writeModelDir(join(transformersJs, name), { tokenizer, decoder, nested: true })
  // transformers.js pads a batch with the tokenizer's pad token, which it reads from here.
  writeFileSync(join(tjs, 'tokenizer_config.json'), JSON.stringify({ pad_token: '<|endoftext|>', eos_token: '<|endoftext|>' }, null, 1) + '\n')
  for (const [type, suffix] of Object.entries(ggufFiles)) {
    const gguf = join(models, `${name}${suffix}.gguf`)
    writeFileSync(`${gguf}.partial`, fixture.buildGguf(decoder, tokenizer, { type }))
    renameSync(`${gguf}.partial`, gguf)
  }
  console.log(`wrote ${dir}/ (model.onnx, tokenizer.json, config.json), ${tjs}/ and ${Object.values(ggufFiles).map((s) => `${name}${s}.gguf`).join(', ')}`)
}
writeFileSync(stampFile, stamp + '\n')
