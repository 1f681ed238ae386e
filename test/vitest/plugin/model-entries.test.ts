// The plugin's `models.<name>` entries take their own scorer's options: a GGUF file ggufScorer's
// (threads, sequences, kvCacheType, …), an ONNX model directory the ONNX scorer's (workers,
// dtype, …). A key of the other scorer, or a misspelt one, stops the config load with one line
// naming the entry and the key; the keys given reach the shared model as written.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { optionKeys } from '../../../src/core/support/options.ts'
import { GgufScorerOptionsSchema } from '../../../src/scorers/gguf/options.ts'
import { SharedGgufModelOptionsSchema } from '../../../src/vitest/plugin/options-schema.ts'
import { sceptic } from '../../../src/vitest/plugin/plugin.ts'
import { TempDirs } from '../../helpers/temp.ts'

const temp = new TempDirs('sceptic-model-entries-')
afterAll(() => temp.removeAll())

// Written apart from src: the keys each scorer documents (docs/gguf.md, docs/onnx-models.md) that cross processes as JSON.
const GGUF_ONLY = { contextLength: 512, sequences: 2, threads: 1, kvCacheType: 'F32', flashAttention: false } as const
const ONNX_ONLY = { workers: 2, threadsPerWorker: 1, executionProviders: ['cpu'], dtype: 'fp32', prepackCache: '.prepack' } as const
const BOTH = { batchSize: 8, chatTemplate: false, system: 'Be brief.', chatTemplateKwargs: { enable_thinking: false } } as const

/** A Vitest root with a `.gguf` file, a GGUF file named without the extension and an ONNX model directory. */
function project(): string {
  const root = temp.make()
  writeFileSync(join(root, 'tiny.gguf'), 'GGUF' + '\0'.repeat(60))
  writeFileSync(join(root, 'tiny-model'), 'GGUF' + '\0'.repeat(60))
  mkdirSync(join(root, 'onnx-dir'))
  return root
}
const ROOT = project()

/** `sceptic(options)` and its config-load hook on a project at {@link ROOT}: what it provides to suites. */
function load(options: Parameters<typeof sceptic>[0]): Record<string, unknown> {
  const context: Record<string, unknown> = {}
  const projectStub = { config: { pool: 'forks', setupFiles: [] as string[], root: ROOT, globalSetup: [] }, provide: (key: string, value: unknown) => (context[key] = value) }
  const vitest = { config: { snapshotOptions: { updateSnapshot: 'new' }, reporters: ['blob'], onConsoleLog: undefined } }
  ;(sceptic(options) as unknown as { configureVitest: (c: object) => void }).configureVitest({ vitest, project: projectStub })
  return context.sceptic as Record<string, unknown>
}

const refusal = (options: Parameters<typeof sceptic>[0]): string => {
  try {
    load(options)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigError')
}

const subset = <T extends Record<string, unknown>>(record: T) => fc.subarray(Object.keys(record)).map((keys) => Object.fromEntries(keys.map((key) => [key, record[key]])))

describe('a GGUF entry takes ggufScorer’s options', () => {
  it('is ggufScorer’s own schema, less the one option that is a function', () => {
    expect(optionKeys(SharedGgufModelOptionsSchema).sort()).toEqual(optionKeys(GgufScorerOptionsSchema).filter((key) => key !== 'template').sort())
    expect(optionKeys(SharedGgufModelOptionsSchema).sort()).toEqual(['model', ...Object.keys(GGUF_ONLY), ...Object.keys(BOTH)].sort())
  })

  it('any of its keys passes, and reaches the shared model as written (a .gguf name, or a GGUF file without one)', () => {
    fc.assert(
      fc.property(subset({ ...GGUF_ONLY, ...BOTH }), fc.constantFrom('tiny.gguf', 'tiny-model'), (keys, model) => {
        const provided = load({ models: { tiny: { model, ...keys } } }) as { models: Record<string, Record<string, unknown>> }
        expect(provided.models.tiny).toEqual({ ...keys, model: join(ROOT, model) })
      }),
      { numRuns: 40 },
    )
  })

  it('a key of the ONNX scorer is refused at config load, naming the entry and the key', () => {
    fc.assert(
      fc.property(subset(GGUF_ONLY), fc.constantFrom(...Object.keys(ONNX_ONLY)), fc.constantFrom('tiny.gguf', 'tiny-model'), (keys, onnx, model) => {
        const message = refusal({ models: { tiny: { model, ...keys, [onnx]: ONNX_ONLY[onnx as keyof typeof ONNX_ONLY] } } })
        expect(message).toMatch(new RegExp(`^unknown option \`models\\.tiny\\.${onnx}\` in sceptic\\(\\) options — \`${onnx}\` is for ONNX model directories; models\\.tiny is a GGUF file, which takes .*\`threads\`, `))
        expect(message).not.toContain('\n')
      }),
      { numRuns: 40 },
    )
  })
})

describe('an ONNX entry takes the ONNX scorer’s options', () => {
  it('any of its keys passes', () => {
    fc.assert(
      fc.property(subset({ ...ONNX_ONLY, ...BOTH }), (keys) => {
        const provided = load({ models: { qwen: { model: 'onnx-dir', ...keys } } }) as { models: Record<string, Record<string, unknown>> }
        expect(provided.models.qwen).toMatchObject({ ...keys, model: join(ROOT, 'onnx-dir'), ...('prepackCache' in keys ? { prepackCache: join(ROOT, '.prepack') } : {}) })
      }),
      { numRuns: 30 },
    )
  })

  it('a key of the GGUF scorer is refused, naming the entry and the key', () => {
    for (const key of Object.keys(GGUF_ONLY))
      expect(refusal({ models: { qwen: { model: 'onnx-dir', workers: 1, [key]: GGUF_ONLY[key as keyof typeof GGUF_ONLY] } } })).toMatch(
        new RegExp(`^unknown option \`models\\.qwen\\.${key}\` in sceptic\\(\\) options — \`${key}\` is for GGUF files; models\\.qwen is an ONNX model directory, which takes .*\`workers\``),
      )
  })
})

describe('misspelt keys get the nearest key of the entry’s own scorer', () => {
  it.each([
    ['tiny.gguf', 'thread', /did you mean `models\.tiny\.threads`\?$/],
    ['tiny.gguf', 'Sequences', /did you mean `models\.tiny\.sequences`\?$/],
    ['tiny.gguf', 'KvCacheType', /did you mean `models\.tiny\.kvCacheType`\?$/],
    ['tiny-model', 'flashAtention', /did you mean `models\.tiny\.flashAttention`\?$/],
    // No near GGUF key: the GGUF scorer's keys are listed, never the ONNX `workers`.
    ['tiny.gguf', 'wokers', /^unknown option `models\.tiny\.wokers` in sceptic\(\) options \(known: `models\.tiny\.model`, (?!.*workers).*`models\.tiny\.threads`/],
    // A function does not cross processes: a shared model has no `template`.
    ['tiny.gguf', 'template', /^unknown option `models\.tiny\.template` in sceptic\(\) options — did you mean `models\.tiny\.chatTemplate`\?$/],
    ['onnx-dir', 'wokers', /did you mean `models\.tiny\.workers`\?$/],
    // No near ONNX key: never the GGUF `threads`.
    ['onnx-dir', 'thread', /^unknown option `models\.tiny\.thread` in sceptic\(\) options \(known: (?!.*`models\.tiny\.threads`).*`models\.tiny\.workers`/],
  ])('%s with `%s`', (model, key, pattern) => {
    expect(refusal({ models: { tiny: { model, [key]: 1 } } })).toMatch(pattern)
  })

  it('a `.gguf` entry is checked as soon as sceptic() is called, before the root is known', () => {
    expect(() => sceptic({ models: { tiny: { model: 'anywhere/tiny.gguf', workers: 2 } as never } })).toThrow(/^unknown option `models\.tiny\.workers` in sceptic\(\) options — `workers` is for ONNX model directories/)
    expect(() => sceptic({ models: { tiny: { model: 'anywhere/tiny.gguf', threads: 1, sequences: 1 } } })).not.toThrow()
  })
})
