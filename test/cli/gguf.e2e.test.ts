// `sceptic evaluate DATA --model FILE.gguf` end to end on generated GGUF files: the report
// on a good file (plain and through the file's own chat template), and one line on stderr
// with exit code 2 for every file llama.cpp cannot use — never llama.cpp's own log lines.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bpeTokenizer, buildGguf, tokenizerVocabSize } from '../../scripts/onnx-fixture/index.ts'
import { pathToFileURL } from 'node:url'
import { ROOT, sceptic } from '../helpers/run.ts'
import { SMALL, temp, writeTwins } from '../scorers/gguf/helpers.ts'

const DATA = 'examples/data/tickets.jsonl'
const TEMPLATE = '{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}<|assistant|>\n'
const { dir, gguf } = writeTwins(SMALL, ['Q8_0'], { gguf: { chatTemplate: TEMPLATE } })
afterAll(() => temp.removeAll())

describe('sceptic evaluate --model FILE.gguf', () => {
  it('prints the report under cyclic debiasing and records the llama.cpp build and the tokens evaluated', async () => {
    const json = join(dir, 'out.json')
    const run = await sceptic(['evaluate', DATA, '--model', gguf.Q8_0!, '--debias', 'cyclic', '--no-cache', '--json-out', json])
    expect(run.stderr).not.toMatch(/Error|llama_/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^model {14}gguf .*tiny-Q8_0\.gguf \(\d+ sequences? × \d+ threads?, KV cache F32\)/m)
    expect(run.stdout).toMatch(/balanced accuracy/i)
    const { manifest } = JSON.parse(readFileSync(json, 'utf8'))
    expect(manifest).toMatchObject({ format: 'gguf', kvCacheType: 'F32', flashAttention: false, nodeLlamaCpp: '3.22.1' })
    expect(manifest.tokensEvaluated).toBeGreaterThanOrEqual(manifest.minimumTokens)
    expect(manifest.minimumTokens).toBeGreaterThan(0)
  })

  it("renders the file's own tokenizer.chat_template with --chat-template --system", async () => {
    const json = join(dir, 'chat.json')
    const run = await sceptic(['evaluate', DATA, '--model', gguf.Q8_0!, '--chat-template', '--system', 'Route tickets.', '--no-cache', '--json-out', json])
    expect(run.stderr).not.toMatch(/Error/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/gguf .*\(the model's chat template; /)
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest).toMatchObject({ chatTemplate: true, system: 'Route tickets.' })
  })

  it("scores with node-llama-cpp's decide() from a --scorer module: decide's report line, readout in the manifest", async () => {
    const module = join(dir, 'decide.mjs')
    const entry = pathToFileURL(join(ROOT, 'dist/gguf/index.js')).href
    writeFileSync(module, `import { ggufDecisionScorer } from ${JSON.stringify(entry)}\nexport default ggufDecisionScorer({ model: ${JSON.stringify(gguf.Q8_0!)}, threads: 1 })\n`)
    const json = join(dir, 'decide.json')
    const run = await sceptic(['evaluate', DATA, '--scorer', module, '--debias', 'cyclic', '--no-cache', '--json-out', json])
    expect(run.stderr).not.toMatch(/Error|llama_/)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^model {14}decide gguf .*tiny-Q8_0\.gguf \(node-llama-cpp's chat wrapper, 1 thread\)/m)
    const { manifest } = JSON.parse(readFileSync(json, 'utf8'))
    expect(manifest).toMatchObject({ readout: 'decide', chatWrapper: 'auto', nodeLlamaCpp: '3.22.1' })
    expect(manifest.inputTokens).toBeGreaterThan(0)
  })

  it('refuses ONNX-only flags with a GGUF file', async () => {
    const run = await sceptic(['evaluate', DATA, '--model', gguf.Q8_0!, '--dtype', 'q8', '--no-cache'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/--dtype applies only to ONNX model directories/)
  })
})

describe('a file llama.cpp cannot use is one line and exit 2', () => {
  const tokenizer = bpeTokenizer({ merges: 200 })
  const decoder = { ...SMALL, vocab: tokenizerVocabSize(tokenizer) }
  const good = readFileSync(gguf.Q8_0!)
  const noLetters = bpeTokenizer({ merges: 200, omitLetters: ['A', 'B', 'C', 'D'] })
  const cases: [string, () => string, RegExp][] = [
    ['not GGUF', () => write('notes.gguf', Buffer.from('this is a text file, not a model\n'.repeat(4))), /not a GGUF file/],
    ['truncated', () => write('truncated.gguf', good.subarray(0, Math.floor(good.length * 0.6))), /llama\.cpp cannot load it/],
    ['an unknown architecture', () => write('arch.gguf', buildGguf(decoder, tokenizer, { architecture: 'sceptic9' })), /architecture "sceptic9"/],
    ['a missing tensor', () => write('missing.gguf', buildGguf(decoder, tokenizer, { omitTensors: ['blk.1.ffn_down.weight'] })), /llama\.cpp cannot load it/],
    ['a vocabulary without the letters', () => write('letters.gguf', buildGguf({ ...SMALL, vocab: tokenizerVocabSize(noLetters) }, noLetters)), /option letter "A" cannot be read/],
    ['a directory', () => (mkdirSync(join(dir, 'folder.gguf'), { recursive: true }), join(dir, 'folder.gguf')), /a directory, not a GGUF file/],
  ]
  for (const [name, make, message] of cases)
    it(name, async () => {
      const run = await sceptic(['evaluate', DATA, '--model', make(), '--no-cache'])
      expect(run.code).toBe(2)
      expect(run.stderr).toMatch(message)
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
      expect(run.stdout).toBe('')
    })
})

function write(name: string, bytes: Uint8Array): string {
  const path = join(dir, name)
  writeFileSync(path, bytes)
  return path
}
