// A run that did not complete never exits 0: a chat template that raises fails the scorer's
// startup, and that failure reaches the API (a rejection) and the CLI (its one line, exit 2)
// every time. Before the fix, the probe's close() waited for the `exit` of a renderer process
// already unref'd: the event loop drained with ready() pending and a script exited 0 unscored.
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, run, sceptic } from '../../helpers/run.ts'
import { buildGguf, bpeTokenizer, tokenizerVocabSize } from '../../../scripts/onnx-fixture/index.ts'
import { SMALL } from '../../scorers/gguf/helpers.ts'
import { cleanup, decisions, distUrl, temp, writeData } from '../helpers.ts'

afterAll(cleanup)

// Compiles, then raises on every render: the probe render rejects at startup.
const RAISING = "{{ raise_exception('this template refuses every prompt') }}"
const TINY = join(ROOT, 'examples/models/tiny')
const RUNS = 4

let dir: string
let data: string
let onnxModel: string
let ggufModel: string

beforeAll(() => {
  dir = temp()
  data = writeData(dir, decisions(4))
  onnxModel = join(dir, 'onnx')
  cpSync(TINY, onnxModel, { recursive: true })
  writeFileSync(join(onnxModel, 'tokenizer_config.json'), JSON.stringify({ chat_template: RAISING }))
  const tokenizer = bpeTokenizer({ merges: 200 })
  ggufModel = join(dir, 'raising.gguf')
  writeFileSync(ggufModel, buildGguf({ ...SMALL, vocab: tokenizerVocabSize(tokenizer) }, tokenizer, { type: 'F32', chatTemplate: RAISING }))
})

/** A script that awaits the API on `data` with the scorer `kind`Scorer(`options`) and gates (no top-level await: Node would say 13). */
function script(name: string, kind: 'onnx' | 'gguf', options: Record<string, unknown>): string {
  const path = join(dir, `${name.replace(/\W+/g, '-')}.mjs`)
  writeFileSync(
    path,
    `import { readFileSync } from 'node:fs'
    async function main() {
      const { evaluateWithScorer } = await import(${distUrl('dist/index.js')})
      const { ${kind}Scorer: make } = await import(${distUrl(`dist/${kind}/index.js`)})
      const scorer = make(${JSON.stringify(options)})
      const rows = readFileSync(${JSON.stringify(data)}, 'utf8').trim().split('\\n').map((line) => JSON.parse(line))
      try {
        const result = await evaluateWithScorer(rows, scorer)
        process.stdout.write('scored ' + result.records.length + '\\n')
      } finally {
        await scorer.close()
      }
    }
    main().catch((error) => {
      process.stderr.write('rejected: ' + error.message.split('\\n')[0] + '\\n')
      process.exitCode = 3
    })\n`,
  )
  return path
}

describe.each(['onnx', 'gguf'] as const)('%s: a chat template that raises at startup', (kind) => {
  it(`the API rejects with the template's error, ${RUNS} runs of ${RUNS}`, async () => {
    const path = script(kind, kind, { model: kind === 'onnx' ? onnxModel : ggufModel, chatTemplate: true, ...(kind === 'onnx' ? { workers: 1 } : {}) })
    for (let round = 0; round < RUNS / 2; round++) {
      const runs = await Promise.all([0, 1].map(() => run(process.execPath, [path], { timeoutMs: 90_000 })))
      for (const { code, stdout, stderr } of runs) {
        expect({ code, stdout }).toEqual({ code: 3, stdout: '' })
        expect(stderr).toMatch(/^rejected: .*fails to render: .*this template refuses every prompt/)
      }
    }
  }, 300_000)

  it(`the CLI prints the template's one line and exits 2, ${RUNS} runs of ${RUNS}`, async () => {
    const model = kind === 'onnx' ? onnxModel : ggufModel
    for (let round = 0; round < RUNS / 2; round++) {
      const runs = await Promise.all([0, 1].map(() => sceptic(['evaluate', data, '--model', model, '--chat-template', '--no-cache'], { timeoutMs: 90_000 })))
      for (const { code, stderr } of runs) {
        expect(code).toBe(2)
        expect(stderr.trim().split('\n')).toHaveLength(1)
        expect(stderr).toMatch(/^sceptic: ConfigError: .*fails to render: .*this template refuses every prompt/)
      }
    }
  }, 300_000)
})

// The rest of the sweep, each start failure once per face: a template that does not compile
// takes the probe's path too (it failed on the old code); a file the runtime cannot load
// rejected before the renderer existed (a guard).
describe('every other start failure: the API rejects, the CLI exits 2 with one line', () => {
  let broken: Record<string, { model: string; flags: string[]; error: RegExp }>
  beforeAll(() => {
    const uncompiled = join(dir, 'onnx-uncompiled')
    cpSync(TINY, uncompiled, { recursive: true })
    writeFileSync(join(uncompiled, 'tokenizer_config.json'), JSON.stringify({ chat_template: '{% if %}' }))
    const badOnnx = join(dir, 'onnx-bad-file')
    cpSync(TINY, badOnnx, { recursive: true })
    writeFileSync(join(badOnnx, 'model.onnx'), 'not a protobuf')
    const badGguf = join(dir, 'truncated.gguf')
    writeFileSync(badGguf, readFileSync(ggufModel).subarray(0, 4096))
    broken = {
      'onnx, a template that does not compile': { model: uncompiled, flags: ['--chat-template'], error: /chat_template does not compile/ },
      'onnx, a model file that is not a graph': { model: badOnnx, flags: [], error: /model\.onnx/ },
      'gguf, a truncated file': { model: badGguf, flags: [], error: /truncated\.gguf/ },
    }
  })

  it.each(['onnx, a template that does not compile', 'onnx, a model file that is not a graph', 'gguf, a truncated file'])('%s', async (name) => {
    const { model, flags, error } = broken[name]!
    const kind = model.endsWith('.gguf') ? 'gguf' : 'onnx'
    const path = script(name, kind, { model, ...(flags.length ? { chatTemplate: true } : {}), ...(kind === 'onnx' ? { workers: 1 } : {}) })
    const api = await run(process.execPath, [path], { timeoutMs: 90_000 })
    expect({ code: api.code, stdout: api.stdout }).toEqual({ code: 3, stdout: '' })
    expect(api.stderr).toMatch(error)
    const cli = await sceptic(['evaluate', data, '--model', model, ...flags, '--no-cache'], { timeoutMs: 90_000 })
    expect(cli.code, cli.stderr).toBe(2)
    expect(cli.stderr.trim().split('\n')).toHaveLength(1)
    expect(cli.stderr).toMatch(error)
  }, 120_000)
})
