// `sceptic evaluate --model FILE.gguf --threads N --sequences N`: the flags reach the GGUF
// scorer (the report's model line, the manifest), join the score cache's key (a run with other
// sequences or threads is scored again, not served from the cache), and are strict: a bad
// value, a misspelling, or either flag with --scorer or an ONNX model directory is one line, exit 2.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { temp, writeTwins } from '../scorers/gguf/helpers.ts'

const DATA = 'examples/data/tickets.jsonl'
const { dir, gguf } = writeTwins(undefined, ['Q8_0'])
const model = gguf.Q8_0!
afterAll(() => temp.removeAll())

describe('--threads and --sequences with a GGUF model', () => {
  it('reach the scorer: the model line and the manifest say 2 sequences × 1 thread', async () => {
    const json = join(dir, 'flags.json')
    const run = await sceptic(['evaluate', DATA, '--model', model, '--threads', '1', '--sequences', '2', '--no-cache', '--json-out', json])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^model {14}gguf .*tiny-Q8_0\.gguf \(2 sequences × 1 thread, KV cache F32\)$/m)
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest).toMatchObject({ format: 'gguf', threads: 1, sequences: 2 })
  }, 120_000)

  it('join the cache key: the same run hits, other sequences or threads are scored again', async () => {
    const cache = join(dir, 'cache')
    // Six decisions: two llama.cpp threads spin against each other on a busy 2-core machine.
    const data = join(dir, 'six.jsonl')
    writeFileSync(data, readFileSync(DATA, 'utf8').split('\n').slice(0, 6).join('\n') + '\n')
    const once = async (extra: string[], name: string) => {
      const json = join(dir, `${name}.json`)
      const run = await sceptic(['evaluate', data, '--model', model, '--cache', cache, '--cache-mode', 'read-write', '--json-out', json, ...extra])
      expect(run.code, run.stderr).toBe(0)
      return JSON.parse(readFileSync(json, 'utf8')).manifest.cache as { hits: number; misses: number }
    }
    const first = await once(['--sequences', '1', '--threads', '1'], 'first')
    expect(first.hits).toBe(0)
    expect(first.misses).toBeGreaterThan(0)
    expect(await once(['--sequences', '1', '--threads', '1'], 'again')).toMatchObject({ hits: first.misses, misses: 0 })
    expect(await once(['--sequences', '2', '--threads', '1'], 'sequences')).toMatchObject({ hits: 0, misses: first.misses })
    expect(await once(['--sequences', '1', '--threads', '2'], 'threads')).toMatchObject({ hits: 0, misses: first.misses })
  }, 240_000)

  const refused: [string, () => string[], RegExp][] = [
    ['--threads 0', () => ['--model', model, '--threads', '0'], /--threads must be an integer ≥ 1, got "0"/],
    ['--threads two', () => ['--model', model, '--threads', 'two'], /--threads must be an integer ≥ 1, got "two"/],
    ['--sequences 1.5', () => ['--model', model, '--sequences', '1.5'], /--sequences must be an integer ≥ 1, got "1\.5"/],
    ['--sequences -1', () => ['--model', model, '--sequences=-1'], /--sequences must be an integer ≥ 1, got "-1"/],
    ['--sequences with no value', () => ['--model', model, '--sequences'], /--sequences/],
    ['a misspelling, --thread', () => ['--model', model, '--thread', '2'], /--thread.*did you mean --threads/],
    ['a misspelling, --sequence', () => ['--model', model, '--sequence', '2'], /--sequence.*did you mean --sequences/],
    ['--threads with --scorer', () => ['--scorer', 'examples/scorers/always-first.mjs', '--threads', '2'], /--threads applies only to --model FILE\.gguf/],
    ['--sequences with an ONNX model directory', () => (mkdirSync(join(dir, 'onnx-dir'), { recursive: true }), ['--model', join(dir, 'onnx-dir'), '--sequences', '2']), /--sequences applies only to a GGUF model file, not to an ONNX model directory/],
    ['--workers with a GGUF file', () => ['--model', model, '--workers', '2'], /--workers applies only to ONNX model directories, not to a GGUF file/],
  ]
  for (const [name, args, message] of refused)
    it(`refuses ${name}: one line, exit 2`, async () => {
      const run = await sceptic(['evaluate', DATA, ...args(), '--no-cache'])
      expect(run.code, run.stderr).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr.trim().split('\n')).toHaveLength(1)
      expect(run.stderr).toMatch(message)
    })
})
