// Nothing unchecked reaches native code: a GGUF header llama.cpp would assert on is a one-line
// ConfigError (the CLI exits 2), never a SIGABRT (exit 134); header values are read unsigned as
// the format stores them; node-llama-cpp's own warnings stay out of the one line; and the value
// a CI system gives `CI` never stops node-llama-cpp from loading. Every case here aborted,
// misread, printed two lines or refused to load on the old code.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../../helpers/run.ts'
import { buildGguf, bpeTokenizer, tokenizerVocabSize, type GgufOptions } from '../../../scripts/onnx-fixture/index.ts'
import { ggufScorer } from '../../../src/scorers/gguf/index.ts'
import { SMALL } from '../../scorers/gguf/helpers.ts'
import { cleanup, decisions, temp, writeData } from '../helpers.ts'

afterAll(cleanup)

let dir: string
let data: string
const tokenizer = bpeTokenizer({ merges: 200 })
const write = (name: string, options: GgufOptions): string => {
  const path = join(dir, `${name}.gguf`)
  writeFileSync(path, buildGguf({ ...SMALL, vocab: tokenizerVocabSize(tokenizer) }, tokenizer, { type: 'F32', ...options }))
  return path
}

beforeAll(() => {
  dir = temp()
  data = writeData(dir, decisions(4))
})

// Each aborted llama.cpp (GGML_ASSERT, exit 134) on the old code; the uint64 ones it could not read.
const REFUSED: [string, GgufOptions, RegExp][] = [
  ['block_count 0', { metadata: { 'qwen2.block_count': 0 } }, /qwen2\.block_count is 0: llama\.cpp loads 1 to 512 layers/],
  ['block_count 513', { metadata: { 'qwen2.block_count': 513 } }, /qwen2\.block_count is 513/],
  ['block_count 600', { metadata: { 'qwen2.block_count': 600 } }, /qwen2\.block_count is 600/],
  ['block_count 2^32 + 2 as uint64', { metadata: { 'qwen2.block_count': 2n ** 32n + 2n } }, /qwen2\.block_count is 4294967298: .*0 to 4294967295/],
  ['feed_forward_length 0', { metadata: { 'qwen2.feed_forward_length': 0 } }, /qwen2\.feed_forward_length is 0: llama\.cpp needs at least 1/],
  ['feed_forward_length all 0 per layer', { metadata: { 'qwen2.feed_forward_length': [0, 0] } }, /qwen2\.feed_forward_length is \[0,0\]/],
  ['head_count_kv 0', { metadata: { 'qwen2.attention.head_count_kv': 0 } }, /qwen2\.attention\.head_count_kv is 0/],
  ['head_count 0', { metadata: { 'qwen2.attention.head_count': 0 } }, /qwen2\.attention\.head_count is 0/],
  ['embedding_length 0', { metadata: { 'qwen2.embedding_length': 0 } }, /qwen2\.embedding_length is 0/],
  ['embedding_length -1 as int32', { metadata: { 'qwen2.embedding_length': { i32: -1 } } }, /qwen2\.embedding_length is -1/],
  ['context_length 0', { metadata: { 'qwen2.context_length': 0 } }, /qwen2\.context_length is 0: no prompt fits/],
  ['context_length 2^40 as uint64', { metadata: { 'qwen2.context_length': 2n ** 40n } }, /qwen2\.context_length is 1099511627776/],
  // node-llama-cpp printed its own warning line, then the error: one line now.
  ['GGUF version 99', { version: 99 }, /GGUF version 99: llama\.cpp reads versions 2 and 3/],
]

describe('a GGUF header llama.cpp would abort on: one line, exit 2', () => {
  it.each(REFUSED)('%s', async (name, options, error) => {
    const model = write(name.replace(/\W+/g, '-'), options)
    const cli = await sceptic(['evaluate', data, '--model', model, '--no-cache'], { timeoutMs: 90_000 })
    expect(cli.code, cli.stderr).toBe(2)
    expect(cli.stderr.trim().split('\n')).toHaveLength(1)
    expect(cli.stderr).toMatch(/^sceptic: ConfigError: /)
    expect(cli.stderr).toMatch(error)
  }, 120_000)
})

describe('header values read unsigned', () => {
  it('context_length 2^31 is 2147483648 (llama.cpp read it as -2147483648), and the file scores', async () => {
    const scorer = ggufScorer({ model: write('context-2-31', { metadata: { 'qwen2.context_length': 2 ** 31 } }), threads: 1 })
    try {
      expect((await scorer.ready()).trainContext).toBe(2 ** 31)
      expect(scorer.settings.contextLength).toBe(4096)
    } finally {
      await scorer.close()
    }
    const scorerMax = ggufScorer({ model: write('context-max', { metadata: { 'qwen2.context_length': 2 ** 32 - 1 } }), threads: 1 })
    try {
      expect((await scorerMax.ready()).trainContext).toBe(2 ** 32 - 1)
    } finally {
      await scorerMax.close()
    }
  }, 60_000)
})

describe("CI as CI systems set it: node-llama-cpp loads (its parser took only true/false/1/0)", () => {
  it.each(['woodpecker', 'yes', '', 'on'])('CI=%j', async (ci) => {
    const model = write('good', {})
    const cli = await sceptic(['evaluate', data, '--model', model, '--no-cache'], { timeoutMs: 90_000, env: { CI: ci } })
    expect(cli.stderr).not.toMatch(/node-llama-cpp|env-var|CI/)
    expect(cli.code, cli.stderr).toBe(0)
    expect(cli.stdout).toMatch(/^model {14}gguf /m)
  }, 120_000)
})
