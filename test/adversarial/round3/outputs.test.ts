// Outputs never replace inputs: for every command with outputs and every file it reads, an
// output pointed at that file (as given, through a symlink, or spelt `in/../in/name`) is
// refused with a ConfigError (exit 2) before anything is written, and the input keeps its
// bytes. Covers the inputs a command finds on its own: the records file `compare` reads beside
// a `--json-out` result, `report`'s records beside a run, `merge`'s part files.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { commands } from '../../../src/cli/commands.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { useTempDirs } from '../../helpers/temp.ts'

const temp = useTempDirs('sceptic-outputs-')

/** A command line, the files it reads (made with these bytes), and its output options. */
interface Case {
  command: string
  /** Input files relative to the folder `in/`, with their content. */
  files: Record<string, string>
  /** Argv, given the absolute path of each input file by name, and the output flag's value. */
  argv: (at: (name: string) => string, flag: string, out: string) => string[]
  /** The output options, and the inputs each is pointed at (default: every file). */
  outputs: string[]
  targets?: string[]
}

const RESULT = JSON.stringify({ accuracy: 1, balancedAccuracy: 1, orderConsistency: 1, ece: 0, brier: 0, n: 1, perCriterion: {}, letterDistribution: {}, manifest: { debias: 'none', orderingsScored: 1, chance: 0.5 } })
const DATA = '{"id":"a","state":"s","criterion":{"key":"k","options":[{"id":"x","text":"X"},{"id":"y","text":"Y"}]},"answer_id":"x","group_id":"g1"}\n'

const CASES: Case[] = [
  {
    command: 'evaluate',
    files: { 'data.jsonl': DATA, 'scorer.mjs': 'export default () => []\n' },
    argv: (at, flag, out) => [at('data.jsonl'), '--scorer', at('scorer.mjs'), flag, out],
    outputs: ['--json-out', '--records-out'],
  },
  {
    command: 'evaluate',
    files: { 'data.jsonl': DATA, 'model/config.json': '{}', 'model/tokenizer.json': '{}', 'model/onnx/model.onnx': 'weights' },
    argv: (at, flag, out) => [at('data.jsonl'), '--model', dirname(dirname(at('model/onnx/model.onnx'))), flag, out],
    outputs: ['--json-out'],
  },
  {
    command: 'compare',
    files: { 'a.json': RESULT, 'a.records.jsonl': '{}\n', 'b.json': RESULT, 'b.records.jsonl': '{}\n', 'data.jsonl': DATA },
    argv: (at, flag, out) => [at('a.json'), at('b.json'), '--data', at('data.jsonl'), flag, out],
    outputs: ['--json-out'],
  },
  {
    command: 'compare',
    files: { 'a.records.jsonl': '{}\n', 'b.records.jsonl': '{}\n' },
    argv: (at, flag, out) => [at('a.records.jsonl'), at('b.records.jsonl'), flag, out],
    outputs: ['--json-out'],
  },
  {
    command: 'merge',
    files: { 'p1.records.jsonl': '{}\n', 'p1.records.shard.jsonl': '{}\n', 'p2.records.jsonl': '{}\n', 'p2.records.shard.jsonl': '{}\n' },
    argv: (at, flag, out) => [at('p1.records.jsonl'), at('p2.records.jsonl'), flag, out],
    outputs: ['--json-out', '--records-out'],
  },
  {
    command: 'report',
    files: { 'run.json': RESULT, 'run.records.jsonl': '{}\n' },
    argv: (at, flag, out) => [at('run.json'), flag, out],
    outputs: ['--html-out'],
  },
  {
    command: 'report',
    files: { 'a.json': RESULT, 'b.json': RESULT, 'ra.jsonl': '{}\n', 'rb.jsonl': '{}\n' },
    argv: (at, flag, out) => [at('a.json'), at('b.json'), '--records', at('ra.jsonl'), '--records', at('rb.jsonl'), flag, out],
    outputs: ['--html-out'],
  },
  {
    command: 'split',
    files: { 'data.jsonl': DATA },
    argv: (at, flag, out) => [at('data.jsonl'), '--eval-fraction', '0.5', ...(flag === '--train-out' ? [flag, out, '--eval-out', join(dirname(at('data.jsonl')), '..', 'e.jsonl')] : [flag, out, '--train-out', join(dirname(at('data.jsonl')), '..', 't.jsonl')])],
    outputs: ['--train-out', '--eval-out'],
  },
]

/** Each way to spell the path of `file` (in `in/`): as given, a symlink to it, `in/../in/name`. */
const SPELLINGS: Record<string, (file: string, dir: string) => string> = {
  'as given': (file) => file,
  'through a symlink': (file, dir) => {
    const link = join(dir, `link-${basename(file)}-${Math.random().toString(36).slice(2)}`)
    symlinkSync(file, link)
    return link
  },
  'spelt in/../in/name': (file, dir) => join(dir, 'in', '..', 'in', file.slice(join(dir, 'in').length + 1)),
}

function setUp(files: Record<string, string>): { dir: string; at: (name: string) => string } {
  const dir = temp()
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, 'in', name)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
  }
  return { dir, at: (name) => join(dir, 'in', name) }
}

/** The error `run` rejects with, or undefined when it settles. */
async function failure(run: () => Promise<number>): Promise<unknown> {
  try {
    await run()
    return undefined
  } catch (error) {
    return error
  }
}

describe('every command refuses an output over any input it reads', () => {
  const rows = CASES.flatMap((c) => c.outputs.flatMap((flag) => (c.targets ?? Object.keys(c.files)).flatMap((input) => Object.keys(SPELLINGS).map((spelling) => ({ c, flag, input, spelling })))))
  it.each(rows.map((row) => [`${row.c.command} ${row.flag} over ${row.input} (${row.spelling})`, row] as const))('%s', async (_, { c, flag, input, spelling }) => {
    const { dir, at } = setUp(c.files)
    const out = SPELLINGS[spelling]!(at(input), dir)
    const error = await failure(() => commands[c.command]!.run(c.argv(at, flag, out)))
    expect(error, String(error)).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).exitCode).toBe(2)
    expect((error as Error).message).toMatch(/refusing to overwrite the input file/)
    for (const [name, content] of Object.entries(c.files)) expect(readFileSync(at(name), 'utf8'), name).toBe(content)
  })
})

describe('model commands refuse --model-out over an input folder or file', () => {
  const MODEL = { 'model/config.json': '{}', 'model/onnx/model.onnx': 'weights', 'calibration.jsonl': DATA }
  const rows = ['optimize-model', 'quantize-model'].flatMap((command) => ['model', 'model/onnx', ...(command === 'quantize-model' ? ['calibration.jsonl'] : [])].flatMap((input) => Object.keys(SPELLINGS).map((spelling) => ({ command, input, spelling }))))
  it.each(rows.map((row) => [`${row.command} --model-out over ${row.input} (${row.spelling})`, row] as const))('%s', async (_, { command, input, spelling }) => {
    const { dir, at } = setUp(MODEL)
    const out = SPELLINGS[spelling]!(at(input), dir)
    const argv = [at('model'), '--model-out', out, ...(command === 'quantize-model' ? ['--calibration', at('calibration.jsonl')] : [])]
    const error = await failure(() => commands[command]!.run(argv))
    expect(error, String(error)).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(input === 'calibration.jsonl' ? /is a file, not a folder/ : /refusing to write into the input folder/)
    for (const [name, content] of Object.entries(MODEL)) expect(readFileSync(at(name), 'utf8'), name).toBe(content)
  })
})
