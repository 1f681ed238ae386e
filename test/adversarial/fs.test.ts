// The file-system corpus: nothing outside the run is touched. Device nodes, FIFOs and
// sockets are made by each test in its own temp folder (never /dev); device nodes need
// root (CI runs as root), so those cases are skipped with the reason elsewhere.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { planOutputs, writeOutputs } from '../../src/core/support/outputs.ts'
import { compact } from '../../src/cache/admin.ts'
import { readBaseline } from '../../src/suite/baseline/file.ts'
import { MARKER, MARKER_SIGNATURE } from '../../src/cache/marker.ts'
import { NotAFileError, stageFile, writeFileAtomicSync } from '../../src/core/support/files.ts'
import { jsonErrorOffset } from '../../src/core/support/json-text.ts'
import { ROOT, sceptic } from '../helpers/run.ts'
import { FIRST_SCORER, cleanup, decisions, temp, writeData, writeScorer } from './helpers.ts'

afterAll(cleanup)

const ROOT_USER = process.getuid?.() === 0
const asRoot = ROOT_USER ? it : it.skip
if (!ROOT_USER) console.warn('fs corpus: device-node cases skipped (mknod needs root; CI runs them as root)')

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n')
  expect(lines, stderr).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at |unexpected error/)
  return lines[0]!
}

const mknod = (path: string, type: 'c' | 'b', major: number, minor: number) => execFileSync('mknod', [path, type, String(major), String(minor)])
const mkfifo = (path: string) => execFileSync('mkfifo', [path])
const kind = (path: string) => {
  const s = lstatSync(path)
  return s.isCharacterDevice() ? `char ${s.rdev}` : s.isBlockDevice() ? `block ${s.rdev}` : s.isFIFO() ? 'fifo' : s.isSocket() ? 'socket' : s.isDirectory() ? 'folder' : 'file'
}

/** A folder with a data file and a scorer module. */
function project(): { dir: string; data: string; scorer: string } {
  const dir = temp('sceptic-fs-')
  return { dir, data: writeData(dir, decisions(6)), scorer: writeScorer(dir, `${FIRST_SCORER.trim()}\nexport const cacheKey = 'first v1'\n`) }
}

/** A run that uses the cache (the test setup turns it off). */
const cached = (args: readonly string[], cwd?: string) =>
  sceptic(args, { timeoutMs: 20_000, ...(cwd ? { cwd } : {}), env: { SCEPTIC_CACHE_MODE: 'read-write', SCEPTIC_CACHE_DIR: undefined } })
const run = (args: readonly string[], cwd?: string) => sceptic(args, { timeoutMs: 20_000, ...(cwd ? { cwd } : {}), env: { SCEPTIC_CACHE_MODE: 'off' } })

describe('outputs that are not regular files are never renamed over', () => {
  asRoot('a character device (a /dev/null node made here) is written in place: exit 0, still the same device', async () => {
    const { dir, data, scorer } = project()
    const node = join(dir, 'null')
    mknod(node, 'c', 1, 3)
    const before = kind(node)
    const { code, stderr } = await run(['evaluate', data, '--scorer', scorer, '--json-out', node, '--records-out', node])
    expect(code, stderr).toBe(0)
    expect(kind(node)).toBe(before)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  asRoot('a full device (a /dev/full node made here) is a one-line DataError, exit 3; the device stays and no file output is written', async () => {
    const { dir, data, scorer } = project()
    const full = join(dir, 'full')
    mknod(full, 'c', 1, 7)
    const records = join(dir, 'run.records.jsonl')
    const { code, stderr } = await run(['evaluate', data, '--scorer', scorer, '--json-out', full, '--records-out', records])
    expect(code).toBe(3)
    expect(oneLine(stderr)).toMatch(/DataError: .*full: cannot write --json-out \(ENOSPC\); no output was written$/)
    expect(kind(full)).toBe(`char ${statSync(full).rdev}`)
    expect(lstatSync(full).isCharacterDevice()).toBe(true)
    expect(existsSync(records)).toBe(false)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  asRoot('a block device node is refused before any work (exit 2), never written or replaced', async () => {
    const { dir, data, scorer } = project()
    const block = join(dir, 'disk')
    mknod(block, 'b', 7, 200)
    const { code, stderr } = await run(['evaluate', data, '--scorer', scorer, '--records-out', block])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/--records-out .*disk: is a block device, not a regular file/)
    expect(kind(block)).toMatch(/^block /)
  })

  it('a FIFO is refused before any work (exit 2): no hang waiting for a reader, still a FIFO', async () => {
    const { dir, data, scorer } = project()
    const fifo = join(dir, 'pipe')
    mkfifo(fifo)
    const { code, stderr } = await run(['evaluate', data, '--scorer', scorer, '--json-out', fifo])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/ConfigError: --json-out .*pipe: is a named pipe \(FIFO\), not a regular file/)
    expect(kind(fifo)).toBe('fifo')
  })

  it('a socket is refused (exit 2) and stays a socket', async () => {
    const { dir, data, scorer } = project()
    const path = join(dir, 'sock')
    const server: Server = createServer()
    await new Promise<void>((done) => server.listen(path, done))
    try {
      const { code, stderr } = await run(['compare', data, data, '--json-out', path])
      expect(code).toBe(2)
      expect(oneLine(stderr)).toMatch(/--json-out .*sock: is a socket, not a regular file/)
      expect(kind(path)).toBe('socket')
    } finally {
      server.close()
    }
  })

  it('`--json-out -` is refused (exit 2) and never creates a file named -', async () => {
    const { dir, data, scorer } = project()
    const { code, stderr } = await run(['evaluate', data, '--scorer', scorer, '--json-out', '-'], dir)
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/--json-out -: writing to standard output is not supported/)
    expect(existsSync(join(dir, '-'))).toBe(false)
  })

  it('a target turned into a FIFO after planning is refused at the write (DataError, exit 3), the FIFO stays and no temp file is left', async () => {
    const dir = temp('sceptic-fs-')
    const target = join(dir, 'run.json')
    const other = join(dir, 'run.records.jsonl')
    const planned = await planOutputs([{ flag: '--json-out', path: target }, { flag: '--records-out', path: other }], [])
    mkfifo(target)
    const failed = await writeOutputs(planned.map((output) => ({ output, content: '{}\n' }))).catch((error: unknown) => error)
    expect(failed).toMatchObject({ name: 'DataError', exitCode: 3 })
    expect(String((failed as Error).message)).toMatch(/run\.json: cannot write --json-out \(.*run\.json is a named pipe \(FIFO\), not a regular file; it is never replaced\); no output was written$/)
    expect(kind(target)).toBe('fifo')
    expect(readdirSync(dir)).toEqual(['run.json'])
  })

  it('the write helpers: a FIFO target is a NotAFileError and stays a FIFO; a regular target is replaced whole', async () => {
    const dir = temp('sceptic-fs-')
    const fifo = join(dir, 'pipe')
    mkfifo(fifo)
    expect(() => writeFileAtomicSync(fifo, 'x')).toThrow(NotAFileError)
    await expect(stageFile(fifo, 'x')).rejects.toThrow(/is a named pipe \(FIFO\), not a regular file; it is never replaced/)
    expect(kind(fifo)).toBe('fifo')
    const file = join(dir, 'out.json')
    writeFileSync(file, 'old')
    writeFileAtomicSync(file, 'new')
    expect(readFileSync(file, 'utf8')).toBe('new')
    expect(readdirSync(dir).sort()).toEqual(['out.json', 'pipe'])
  })
})

/** A copy of the fixture model in a temp folder, with the optional files the scorer reads. */
function modelCopy(): string {
  const dir = join(temp('sceptic-fs-model-'), 'model')
  cpSync(join(ROOT, 'examples/models/tiny'), dir, { recursive: true })
  writeFileSync(join(dir, 'config.json'), '{"model_type": "tiny"}\n')
  writeFileSync(join(dir, 'tokenizer_config.json'), '{}\n')
  return dir
}

describe('every file the ONNX scorer reads is an input no output may overwrite', () => {
  it('config.json, a symlink spelling of tokenizer_config.json and another variant\'s external data are refused (exit 2), byte-identical', async () => {
    const model = modelCopy()
    const { dir, data } = project()
    mkdirSync(join(model, 'onnx'))
    writeFileSync(join(model, 'onnx', 'model_fp16.onnx'), 'fp16 graph')
    writeFileSync(join(model, 'onnx', 'model_fp16.onnx_data'), 'fp16 weights')
    symlinkSync(join(model, 'tokenizer_config.json'), join(dir, 'link.json'))
    const cases: [string, string, RegExp][] = [
      ['--json-out', join(model, 'config.json'), /config\.json: refusing to overwrite the input file .*config\.json$/],
      ['--json-out', './link.json', /\.\/link\.json: refusing to overwrite the input file .*tokenizer_config\.json$/],
      ['--records-out', join(model, 'onnx', '.', 'model_fp16.onnx_data'), /refusing to overwrite the input file .*model_fp16\.onnx_data$/],
    ]
    const before = (['config.json', 'tokenizer_config.json', 'onnx/model_fp16.onnx_data'] as const).map((f) => readFileSync(join(model, f)))
    const results = await Promise.all(cases.map(([flag, path]) => run(['evaluate', data, '--model', model, flag, path], dir)))
    results.forEach(({ code, stderr }, i) => {
      expect(code, stderr).toBe(2)
      expect(oneLine(stderr)).toMatch(cases[i]![2])
    })
    expect((['config.json', 'tokenizer_config.json', 'onnx/model_fp16.onnx_data'] as const).map((f) => readFileSync(join(model, f)))).toEqual(before)
  })

  it('a hard link of the data file, given as an output, is refused (same device and inode), and the data is unchanged', async () => {
    const { dir, data, scorer } = project()
    const link = join(dir, 'other-name.jsonl')
    linkSync(data, link)
    const before = readFileSync(data)
    const { code, stderr } = await run(['evaluate', data, '--scorer', scorer, '--records-out', link])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/other-name\.jsonl: refusing to overwrite the input file .*data\.jsonl$/)
    expect(readFileSync(data)).toEqual(before)
  })
})

describe('model outputs (--model-out) and the Vitest layer write the same way', () => {
  it('optimize-model into a folder whose model.onnx is a FIFO: one line, exit 2, the FIFO stays; a symlink there to the input is replaced, the input untouched', async () => {
    const model = modelCopy()
    const out = join(model, '..', 'out')
    mkdirSync(out)
    mkfifo(join(out, 'model.onnx'))
    const refused = await run(['optimize-model', model, '--model-out', out])
    expect(refused.code).toBe(2)
    expect(oneLine(refused.stderr)).toMatch(/ConfigError: .*out\/model\.onnx is a named pipe \(FIFO\), not a regular file; it is never replaced$/)
    expect(kind(join(out, 'model.onnx'))).toBe('fifo')
    execFileSync('rm', [join(out, 'model.onnx')])
    symlinkSync(join(model, 'tokenizer.json'), join(out, 'tokenizer.json'))
    const before = readFileSync(join(model, 'tokenizer.json'))
    const written = await run(['optimize-model', model, '--model-out', out])
    expect(written.code, written.stderr).toBe(0)
    expect(lstatSync(join(out, 'tokenizer.json')).isFile()).toBe(true)
    expect(readFileSync(join(model, 'tokenizer.json'))).toEqual(before)
  })

  it('a baseline that is a FIFO is refused in one line, not read forever', async () => {
    const fifo = join(temp('sceptic-fs-'), 'suite.json')
    mkfifo(fifo)
    await expect(readBaseline(fifo)).rejects.toThrow(/suite\.json is a named pipe \(FIFO\), not a regular file; remove it or refresh the baseline/)
  })
})

describe('fs surprises in a model directory are one-line ConfigErrors, exit 2', () => {
  const surprises: [string, (model: string) => void, RegExp][] = [
    ['model.onnx is a folder', (m) => (execFileSync('rm', [join(m, 'model.onnx')]), mkdirSync(join(m, 'model.onnx'))), /model\.onnx: is a folder, not a file/],
    ['model.onnx is a dangling link', (m) => (execFileSync('rm', [join(m, 'model.onnx')]), symlinkSync(join(m, 'gone.onnx'), join(m, 'model.onnx'))), /model\.onnx: a symbolic link to a missing file/],
    ['model.onnx is a link loop', (m) => (execFileSync('rm', [join(m, 'model.onnx')]), symlinkSync(join(m, 'model.onnx'), join(m, 'model.onnx'))), /model\.onnx: a symbolic link loop/],
    ['tokenizer.json is a FIFO', (m) => (execFileSync('rm', [join(m, 'tokenizer.json')]), mkfifo(join(m, 'tokenizer.json'))), /tokenizer\.json: is a named pipe \(FIFO\), not a file/],
    ['tokenizer.json is a folder', (m) => (execFileSync('rm', [join(m, 'tokenizer.json')]), mkdirSync(join(m, 'tokenizer.json'))), /tokenizer\.json: is a folder, not a file/],
    ['tokenizer_config.json is empty', (m) => writeFileSync(join(m, 'tokenizer_config.json'), ''), /tokenizer_config\.json: the file is empty/],
    ['config.json is a FIFO', (m) => (execFileSync('rm', [join(m, 'config.json')]), mkfifo(join(m, 'config.json'))), /config\.json: is a named pipe \(FIFO\), not a file/],
    ['external data is a folder', (m) => mkdirSync(join(m, 'model.onnx_data')), /model\.onnx_data: is a folder, not a file/],
  ]
  it.each(surprises)('%s', async (_, plant, message) => {
    const model = modelCopy()
    plant(model)
    const { data } = project()
    const { code, stderr } = await run(['evaluate', data, '--model', model])
    expect(code, stderr).toBe(2)
    expect(oneLine(stderr)).toMatch(new RegExp(`^sceptic: ConfigError: .*${message.source}`))
  })

  ;(ROOT_USER ? it.skip : it)('an unreadable tokenizer.json (skipped as root: root reads any file)', async () => {
    const model = modelCopy()
    chmodSync(join(model, 'tokenizer.json'), 0o000)
    const { data } = project()
    const { code, stderr } = await run(['evaluate', data, '--model', model])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/tokenizer\.json: cannot be read \(EACCES\)/)
  })
})

const SECRET = 'hunter2-sk-abcdefghijklmnop'

describe('parse errors name the file and the position, never the contents', () => {
  it('a tokenizer_config.json holding environment-like text: exit 2, position only, no byte of it quoted', async () => {
    const model = modelCopy()
    writeFileSync(join(model, 'tokenizer_config.json'), `API_KEY=${SECRET}\nHOME=/root\n`)
    const { data } = project()
    const { code, stderr } = await run(['evaluate', data, '--model', model])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/tokenizer_config\.json: not valid JSON \(at line 1, column 1\)$/)
    expect(stderr).not.toContain('API_KEY')
    expect(stderr).not.toContain('hunter2')
  })

  it('a decision line, a records line and a config.json with a secret after the error: the position, not the text', async () => {
    const { dir, data, scorer } = project()
    const bad = join(dir, 'bad.jsonl')
    writeFileSync(bad, `${readFileSync(data, 'utf8')}{"id": "x", "state": ${SECRET}}\n`)
    const records = join(dir, 'bad.records.jsonl')
    writeFileSync(records, `{"id": ${SECRET}}\n`)
    const model = modelCopy()
    writeFileSync(join(model, 'config.json'), `{\n  "n_layer": 2,\n  "token": ${SECRET}\n}\n`)
    const [decisionsRun, compareRun, modelRun] = await Promise.all([
      run(['evaluate', bad, '--scorer', scorer]),
      run(['compare', records, records]),
      run(['evaluate', data, '--model', model]),
    ])
    expect(decisionsRun.code).toBe(3)
    expect(oneLine(decisionsRun.stderr)).toMatch(/bad\.jsonl:7: not valid JSON \(at column 22\)\. Each line must hold one JSON object\.$/)
    expect(compareRun.code).toBe(3)
    expect(oneLine(compareRun.stderr)).toMatch(/bad\.records\.jsonl:1: not valid JSON \(at column 8\)/)
    expect(modelRun.code).toBe(2)
    expect(oneLine(modelRun.stderr)).toMatch(/config\.json: not valid JSON \(at line 3, column 12\)$/)
    for (const { stderr } of [decisionsRun, compareRun, modelRun]) expect(stderr).not.toContain('hunter2')
  })

  it('property: the scanner finds an error exactly when JSON.parse fails, inside the text or at its end', () => {
    const mutated = fc
      .tuple(fc.jsonValue(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '\u0001', '\\', '-', '0', ' ', '{', '['), fc.boolean())
      .map(([value, at, char, remove]) => {
        const text = JSON.stringify(value)
        const i = text.length === 0 ? 0 : at % (text.length + 1)
        return remove ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + char + text.slice(i)
      })
    fc.assert(
      fc.property(mutated, (text) => {
        let valid = true
        try {
          JSON.parse(text)
        } catch {
          valid = false
        }
        const offset = jsonErrorOffset(text)
        if (valid) expect(offset).toBeUndefined()
        else expect(offset !== undefined && offset >= 0 && offset <= text.length).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  it('the position agrees with JSON.parse on what is valid (a scanner that never quotes)', () => {
    for (const text of ['{"a": [1, 2.5e-3, true, null, "\\u00e9\\n"]}', '[]', ' 0 ', '"x"']) {
      expect(() => JSON.parse(text)).not.toThrow()
      expect(jsonErrorOffset(text)).toBeUndefined()
    }
    for (const [text, at] of [['{"a" 1}', 5], ['[1,]', 3], ['{"a":1} x', 8], ['01', 1], ['"\u0001"', 1], ['', 0], ['[1', 2], ['tru', 0]] as const) {
      expect(() => JSON.parse(text)).toThrow()
      expect(jsonErrorOffset(text), text).toBe(at)
    }
  })
})

describe('cache clear and compaction remove only what the cache wrote', () => {
  /** A user's folder that happens to hold scorers/, segments/ and digests/. */
  function userFolder(): { dir: string; files: Record<string, string> } {
    const dir = temp('sceptic-fs-user-')
    const files = {
      'scorers/keyword-reader.mjs': 'export default () => []\n',
      'segments/notes.txt': 'my notes\n',
      'digests/README.md': '# digests\n',
      'src/index.ts': 'export {}\n',
    }
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true })
      writeFileSync(join(dir, name), text)
    }
    return { dir, files }
  }
  const unchanged = (dir: string, files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(dir, name), 'utf8')).toBe(text)
  }

  it('`cache clear DIR` on a folder that is not a cache: exit 2 naming the folder, every file byte-identical', async () => {
    const { dir, files } = userFolder()
    const { code, stderr } = await run(['cache', 'clear', dir])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toContain(`${dir}: not a vitest-sceptic cache (no CACHEDIR.TAG, and it holds `)
    expect(oneLine(stderr)).toMatch(/nothing removed$/)
    unchanged(dir, files)
    expect(existsSync(join(dir, MARKER))).toBe(false)
  })

  it('`--cache .` in a project folder: the run passes, writes no cache file and no marker there, and the files are untouched', async () => {
    const { dir, files } = userFolder()
    const data = writeData(dir, decisions(6))
    const scorer = writeScorer(dir, `${FIRST_SCORER.trim()}\nexport const cacheKey = 'first v1'\n`)
    const { code, stderr } = await cached(['evaluate', data, '--scorer', scorer, '--cache', '.'], dir)
    expect(code, stderr).toBe(0)
    expect(stderr).toMatch(/not a vitest-sceptic cache \(no CACHEDIR\.TAG.*give the cache a folder of its own/)
    unchanged(dir, files)
    expect(readdirSync(join(dir, 'segments'))).toEqual(['notes.txt'])
    expect(readdirSync(join(dir, 'scorers'))).toEqual(['keyword-reader.mjs'])
    expect(existsSync(join(dir, MARKER))).toBe(false)
  })

  it('a cache with a user\'s file in it: clear removes the cache\'s entries and keeps the user\'s file and the marker', async () => {
    const { dir: base, data, scorer } = project()
    const cache = join(base, 'cache')
    const first = await cached(['evaluate', data, '--scorer', scorer, '--cache', cache])
    expect(first.code, first.stderr).toBe(0)
    expect(readFileSync(join(cache, MARKER), 'utf8').split('\n')[0]).toBe(MARKER_SIGNATURE)
    writeFileSync(join(cache, 'scorers', 'mine.mjs'), 'keep me\n')
    const { code, stdout } = await run(['cache', 'clear', cache])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^removed 12 entries from /)
    expect(readdirSync(cache).sort()).toEqual([MARKER, 'scorers'])
    expect(readdirSync(join(cache, 'scorers'))).toEqual(['mine.mjs'])
  })

  it('a cache written before the marker (only the cache\'s names) is accepted, cleared, and given its marker', async () => {
    const { dir: base, data, scorer } = project()
    const cache = join(base, 'cache')
    expect((await cached(['evaluate', data, '--scorer', scorer, '--cache', cache])).code).toBe(0)
    execFileSync('rm', [join(cache, MARKER)])
    const { code, stdout } = await run(['cache', 'clear', cache])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^removed 12 entries/)
    expect(readdirSync(cache)).toEqual([MARKER])
  })

  it('a folder made for the cache with only a .gitignore in it is used and marked; the .gitignore survives clear', async () => {
    const { dir: base, data, scorer } = project()
    const cache = join(base, '.sceptic-cache')
    mkdirSync(cache)
    writeFileSync(join(cache, '.gitignore'), '*\n')
    const first = await cached(['evaluate', data, '--scorer', scorer, '--cache', cache])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).not.toMatch(/cannot write/)
    expect(existsSync(join(cache, MARKER))).toBe(true)
    expect((await run(['cache', 'clear', cache])).code).toBe(0)
    expect(readdirSync(cache).sort()).toEqual(['.gitignore', MARKER])
  })

  it('compaction refuses a folder without the marker that holds a user\'s file, and removes nothing', () => {
    const { dir, files } = userFolder()
    writeFileSync(join(dir, 'segments', 'm00001-4194305-00000001.seg'), 'SCEPTICC\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000')
    expect(() => compact(dir)).toThrow(/not a vitest-sceptic cache \(no CACHEDIR\.TAG.*nothing was compacted$/)
    unchanged(dir, files)
    expect(readdirSync(join(dir, 'segments')).sort()).toEqual(['m00001-4194305-00000001.seg', 'notes.txt'])
  })
})
