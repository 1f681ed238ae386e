// The plugin's `models: { tiny: 'x.gguf' }`: a GGUF file is served from Vitest's main process
// like an ONNX model directory, and two eval files in two forks score through it with
// `sharedModel('tiny')`; the entry takes ggufScorer's options and refuses the ONNX scorer's at
// config load; a bad GGUF file fails the run with one line naming it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { FIXTURES, useDistSnapshot, vitest as spawnVitest } from '../helpers/vitest.ts'
import { temp, writeTwins } from '../scorers/gguf/helpers.ts'

const dist = useDistSnapshot()
const vitest = (args: string[], env: Record<string, string>) => spawnVitest(args, { SCEPTIC_E2E_DIST: dist(), ...env }, 170_000)
afterAll(() => temp.removeAll())

describe('shared GGUF model (plugin `models`)', () => {
  test('two eval files in two forks score through the GGUF file', async () => {
    const { dir, gguf } = writeTwins(undefined, ['Q8_0'])
    const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'shared-gguf')], { SCEPTIC_FIXTURE_OUT: dir, SCEPTIC_GGUF_MODEL: gguf.Q8_0!, SCEPTIC_CACHE_MODE: 'off' })
    expect(code, output).toBe(0)
    const who = readFileSync(join(dir, 'who.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(who.map((w) => w.file).sort()).toEqual([1, 2])
    expect(who.every((w) => w.n === 8 && /^gguf .*tiny-Q8_0\.gguf \(\d+ sequences? × \d+ threads?, KV cache F32\)$/.test(w.model))).toBe(true)
    expect(output).not.toMatch(/llama_model_load/)
    // The served scorer's manifest entries reach each file's manifest, as a local GGUF scorer's do;
    // its token counters are each file's own (the two files' prompts have the same token counts).
    for (const { manifest } of who) {
      expect(manifest).toMatchObject({ nodeLlamaCpp: '3.22.1', kvCacheType: 'F32', flashAttention: false, llamaCpp: expect.any(String) })
      expect(manifest.minimumTokens, JSON.stringify(manifest)).toBeGreaterThan(0)
      // Not ≥ minimumTokens: the sequence may still hold the other file's last prefix ("Ticket …").
      expect(manifest.tokensEvaluated).toBeGreaterThan(manifest.minimumTokens / 2)
    }
    expect(who[0].manifest.minimumTokens).toBe(who[1].manifest.minimumTokens)
  }, 180_000)

  test('an entry with ggufScorer options (threads, sequences) serves with them', async () => {
    const { dir, gguf } = writeTwins(undefined, ['F32'])
    const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'shared-gguf')], {
      SCEPTIC_FIXTURE_OUT: dir,
      SCEPTIC_GGUF_MODEL: gguf.F32!,
      SCEPTIC_GGUF_OPTIONS: JSON.stringify({ threads: 1, sequences: 2, kvCacheType: 'F32' }),
      SCEPTIC_CACHE_MODE: 'off',
    })
    expect(code, output).toBe(0)
    const who = readFileSync(join(dir, 'who.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(who.map((w) => w.file).sort()).toEqual([1, 2])
    for (const w of who) expect(w.model).toMatch(/^gguf .*tiny-F32\.gguf \(2 sequences × 1 thread, KV cache F32\)$/)
  }, 180_000)

  test('an ONNX option on a .gguf entry stops the config load with one line naming it', async () => {
    const { dir, gguf } = writeTwins(undefined, ['F32'])
    const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'shared-gguf')], { SCEPTIC_FIXTURE_OUT: dir, SCEPTIC_GGUF_MODEL: gguf.F32!, SCEPTIC_GGUF_OPTIONS: JSON.stringify({ workers: 2 }) })
    expect(code, output).toBe(1)
    const block = output.slice(output.indexOf('Startup Error')).split('\n').slice(1).filter((line) => line.trim() !== '')
    expect(block, output).toHaveLength(1)
    expect(block[0]).toMatch(/^\[?ConfigError: unknown option `models\.tiny\.workers` in sceptic\(\) options — `workers` is for ONNX model directories; models\.tiny is a GGUF file, which takes `model`, .*`threads`.*\]?$/)
    expect(output).not.toMatch(/^\s+at /m)
    // Refused before any test file ran or the model loaded.
    expect(existsSync(join(dir, 'who.jsonl'))).toBe(false)
  }, 180_000)

  test('a file that is not GGUF fails the run, named in one line', async () => {
    const dir = temp.make()
    const model = join(dir, 'broken.gguf')
    writeFileSync(model, 'not a model\n'.repeat(10))
    const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'shared-gguf')], { SCEPTIC_FIXTURE_OUT: dir, SCEPTIC_GGUF_MODEL: model })
    expect(code).not.toBe(0)
    expect(output).toContain(`${model}: not a GGUF file`)
  }, 180_000)
})
