import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

// End to end: the built binary, the example data and scorers, real files.
const DATA = 'examples/data/tickets.jsonl'
const READER = 'examples/scorers/keyword-reader.mjs'
const FIRST = 'examples/scorers/always-first.mjs'

const dir = useTempDir('sceptic-cli-')

describe('sceptic evaluate', () => {
  it('prints the report, writes the JSON and the records', async () => {
    const json = join(dir, 'r.json')
    const records = join(dir, 'r.jsonl')
    const { code, stdout, stderr } = await sceptic(['evaluate', DATA, '--scorer', READER, '--debias', 'cyclic', '--json-out', json, '--records-out', records])
    expect(stderr).toMatch(/skipping 4 unlabelled/)
    expect(code).toBe(0)
    expect(stdout).toMatch(/^model {14}scorer examples\/scorers\/keyword-reader\.mjs$/m)
    expect(stdout).toMatch(/^decisions {10}56 {3}\(4 unlabelled skipped\)$/m)
    expect(stdout).toMatch(/^debias {13}cyclic {3}4 orderings scored$/m)
    expect(stdout).toMatch(/^order consistency  100\.0%/m)
    expect(stdout).not.toMatch(/\x1b\[/) // a pipe gets plain text

    const result = JSON.parse(await readFile(json, 'utf8'))
    expect(result.n).toBe(56)
    expect(result.orderConsistency).toBe(1)
    expect(result.manifest).toMatchObject({ debias: 'cyclic', orderingsScored: 4, decisions: 56, unlabelledSkipped: 4 })
    // 28 four-option and 28 two-option decisions: 28·4 + 28·2 requests.
    expect(result.manifest.forwardPasses).toBe(168)
    expect(result.records).toBeUndefined()

    const lines = (await readFile(records, 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
    expect(lines).toHaveLength(56)
    // The record keys of docs/design.md#contracts, then the prompt's sha256 prefix (never its text unless asked).
    expect(Object.keys(lines[0])).toEqual(['id', 'criterion', 'gold', 'prediction', 'probabilities', 'picks', 'letters', 'promptHash'])
    expect(lines[0].promptHash).toMatch(/^[0-9a-f]{16}$/)
    expect(lines[0].id).toBe('t-001-queue')
    expect(lines[0].picks).toHaveLength(4)
  })

  it('by default (debias cyclic) exposes the positional scorer: order consistency 0 and letters A 100%', async () => {
    const { code, stdout } = await sceptic(['evaluate', DATA, '--scorer', FIRST])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^debias {13}cyclic /m)
    expect(stdout).toMatch(/^order consistency  0\.0%/m)
    expect(stdout).toMatch(/^letters picked     A:100%  B:0%  C:0%  D:0%$/m)
  })

  it('--debias none says order consistency was not measured', async () => {
    const { code, stdout } = await sceptic(['evaluate', DATA, '--scorer', FIRST, '--debias', 'none'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^order consistency  n\/a {5}not measured: only one ordering was scored \(debias none\)/m)
  })

  it.each([
    [['evaluate'], 2, /evaluate takes one DATA file/],
    [['evaluate', DATA], 2, /give exactly one of --model DIR or --scorer MODULE/],
    [['evaluate', DATA, '--scorer', READER, '--debias', 'sideways'], 2, /ConfigError: --debias must be one of none, cyclic, permutation, calibrated, pride, got "sideways"/],
    [['evaluate', DATA, '--scorer', READER, '--bogus'], 2, /unknown option --bogus \(see: sceptic evaluate --help\)/],
    [['evaluate', DATA, '--scorer', READER, '--debais', 'none'], 2, /unknown option --debais; did you mean --debias\?/],
    [['evaluate', DATA, '--scorer', READER, '--json-outt', 'x.json'], 2, /did you mean --json-out\?/],
    [['evalute', DATA], 2, /unknown command "evalute" \(did you mean "evaluate"\?\)/],
    [['evaluate', DATA, '--scorer', READER, '--seed', 'x'], 2, /--seed must be an integer/],
    [['frobnicate'], 2, /unknown command "frobnicate"/],
    [['evaluate', 'test/data/bad/missing-state.jsonl', '--scorer', READER], 3, /DataError: test\/data\/bad\/missing-state\.jsonl:3, field "state": is required/],
    [['evaluate', 'test/data/bad/all-unlabelled.jsonl', '--scorer', READER], 3, /all-unlabelled\.jsonl: none of the 2 decisions has an answer_id/],
    [['evaluate', DATA, '--scorer', 'nope/missing.mjs'], 2, /ConfigError: --scorer nope\/missing\.mjs: no such module/],
    [['evaluate', DATA, '--scorer', 'package.json'], 2, /ConfigError: --scorer package\.json: the module failed to load/],
  ])('%j exits %i with one line', async (args, exitCode, message) => {
    const { code, stdout, stderr } = await sceptic(args)
    expect(code).toBe(exitCode)
    const lines = stderr.trim().split('\n').filter((line) => !line.startsWith('vitest-sceptic: skipping'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(message)
    expect(stderr).not.toMatch(/\n\s+at /) // no stack trace
    expect(stdout).toBe('')
  })

  it('a scorer that breaks its contract exits 4 naming the request', async () => {
    const module = join(dir, 'nan.mjs')
    await writeFile(module, 'export default (requests) => requests.map((r) => r.criterion.options.map(() => NaN))\n')
    const { code, stderr } = await sceptic(['evaluate', DATA, '--scorer', module, '--debias', 'none'])
    expect(code).toBe(4)
    expect(stderr).toMatch(/ScorerError: the scorer returned NaN at slot A for request 0 \(decision "t-001-queue", criterion "queue", ordering 1 of 1\)/)
  })

  it('calls the module\'s close export when done', async () => {
    const module = join(dir, 'closing.mjs')
    const marker = join(dir, 'closed.txt')
    await writeFile(
      module,
      `import { writeFileSync } from 'node:fs'\nexport default (requests) => requests.map((r) => r.criterion.options.map(() => 1))\nexport function close() { writeFileSync(${JSON.stringify(marker)}, 'closed') }\n`,
    )
    const { code } = await sceptic(['evaluate', DATA, '--scorer', module])
    expect(code).toBe(0)
    expect(await readFile(marker, 'utf8')).toBe('closed')
  })

  it('--epochs and --reducer: each request scored N times, reduced per decision', async () => {
    const module = join(dir, 'sampler.mjs')
    // Epochs 0 and 2 answer slot A (o0), epoch 1 the first other option (o1). The file's
    // golds are o1, o1, o2: under max the values are 1, 1, 0, so the score is 2/3.
    // (Epoch 1 used to score o1 and o2 alike and lean on first-maximum-wins; a tie is no answer now.)
    await writeFile(module, "export default (requests) => requests.map((r) => r.criterion.options.map((o, i) => (i === (r.epoch === 1 ? 1 : 0) ? 1 : 0)))\n")
    const json = join(dir, 'epochs.json')
    const { code, stdout } = await sceptic(['evaluate', 'test/data/good/bom-crlf-blank.jsonl', '--scorer', module, '--debias', 'none', '--epochs', '3', '--reducer', 'max', '--json-out', json])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^score {14}0\.667 {3}\(max over 3 epochs\)$/m)
    const result = JSON.parse(await readFile(json, 'utf8'))
    expect(result.manifest).toMatchObject({ epochs: 3, reducer: 'max', forwardPasses: 9 })
    const bad = await sceptic(['evaluate', DATA, '--scorer', READER, '--reducer', 'sum'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/reducer "sum" is not known/)
  })

  it('--model runs the ONNX scorer and records how it ran in the manifest', async () => {
    const json = join(dir, 'onnx.json')
    const { code, stdout } = await sceptic(['evaluate', DATA, '--model', 'examples/models/tiny', '--debias', 'cyclic', '--workers', '1', '--json-out', json])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^model {14}onnx examples\/models\/tiny \(1 worker × \d threads?, batch ≤ 4/m)
    const result = JSON.parse(await readFile(json, 'utf8'))
    expect(result.manifest).toMatchObject({ model: 'examples/models/tiny', workers: 1, optimizedReadout: false, prefixSharing: 'batched' })
    // What the head computed, read at the end of the run (not 'not started').
    expect(result.manifest.readout).toMatch(/^last position, \d+ letter rows \(made at startup\)$/)
    expect(result.n).toBe(56)
    const missing = await sceptic(['evaluate', DATA, '--model', 'nope/model'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/ConfigError: .*nope\/model/)
  })
})
