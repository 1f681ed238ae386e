// One clear line for setup mistakes, at plugin load: an unsupported Vitest, a missing
// shared model directory, a .ts scorer on a Node that cannot import it.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkSharedModels, checkVitestVersion, installedVitestVersion } from '../../../src/vitest/plugin/preflight.ts'
import { sceptic } from '../../../src/vitest/plugin/plugin.ts'
import { ROOT, sceptic as cli } from '../../helpers/run.ts'
import { useTempDir } from '../../helpers/temp.ts'

const dir = useTempDir('sceptic-preflight-')

describe('Vitest version', () => {
  test.each(['4.1.4', '4.1.12', '5.0.0', '5.1.2', '5.9.0-beta.1'])('%s is supported', (version) => {
    expect(() => checkVitestVersion(version)).not.toThrow()
  })
  test.each(['4.0.18', '4.1.3', '3.2.4', '6.0.0'])('%s is refused in one line saying what to install', (version) => {
    expect(() => checkVitestVersion(version)).toThrow(`vitest-sceptic needs Vitest >=4.1.4 <6, but Vitest ${version} is installed: run \`npm i -D vitest@5\``)
  })
  test('the installed Vitest is read and passes', () => {
    const version = installedVitestVersion()
    expect(version).toMatch(/^[45]\./)
    expect(() => checkVitestVersion(version!)).not.toThrow()
  })
})

describe('shared models', () => {
  test('a missing model directory is named, relative to the root, before any test file runs', () => {
    const plugin = sceptic({ models: { tiny: 'models/nope' } }) as unknown as { configureVitest: (ctx: unknown) => void }
    const project = { config: { root: dir, pool: 'forks', setupFiles: [], globalSetup: [] }, provide() {} }
    const vitest = { config: { reporters: [], snapshotOptions: { updateSnapshot: 'new' } } }
    expect(() => plugin.configureVitest({ vitest, project })).toThrow(`vitest-sceptic: models.tiny: no model directory at models${join('/', 'nope')}`)
  })
  test('a file instead of a directory is named', () => {
    writeFileSync(join(dir, 'model.onnx'), '')
    expect(() => checkSharedModels({ m: { model: join(dir, 'model.onnx') } }, dir)).toThrow('models.m: model.onnx is a file')
  })
  test('onnxruntime-node not resolvable: say how to install it', () => {
    // Resolved from a directory outside this repository: nothing above it has node_modules/onnxruntime-node.
    expect(() => checkSharedModels({ m: { model: dir } }, dir, join(dir, 'x.js'))).toThrow(/need onnxruntime-node, which is not installed: run `ONNXRUNTIME_NODE_INSTALL=skip npm i -D onnxruntime-node@1\.30`/)
    expect(() => checkSharedModels({ m: { model: join(ROOT, 'examples/models/tiny') } }, ROOT)).not.toThrow()
  })
})

describe('a .ts scorer on the CLI', () => {
  test('imports where Node strips types, else one line saying what to do', async () => {
    const module = join(dir, 'scorer.ts')
    writeFileSync(module, 'export default (requests: { criterion: { options: unknown[] } }[]): number[][] => requests.map((r) => r.criterion.options.map(() => 1))\n')
    const { code, stderr } = await cli(['evaluate', 'examples/data/tickets.jsonl', '--scorer', module])
    if ((process as { features?: { typescript?: unknown } }).features?.typescript) expect(code, stderr).toBe(0)
    else {
      expect(code).toBe(2)
      expect(stderr.trim().split('\n').filter((line) => !line.startsWith('vitest-sceptic: skipping'))).toEqual([
        `sceptic: ConfigError: --scorer ${module}: Node ${process.version} cannot import TypeScript; use Node >= 22.18 (it strips types by default), or write the scorer as .mjs (or compile it to .mjs)`,
      ])
    }
  })
})
