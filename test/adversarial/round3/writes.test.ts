// Every write checks the bytes written. A full disk mid-file shows as a short write (write(2)
// returns fewer bytes than asked) and then ENOSPC; root ignores permissions, so the disk is
// mocked: node:fs's writeSync (and the promise API's file handles) take at most a budget of
// bytes, then fail. Every writer of src/core/support/files.ts must then rename nothing into
// place, leave no temp file, and throw; the model commands exit 3 instead of saying "wrote".
import * as realFs from 'node:fs'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import fc from 'fast-check'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { ROOT, run } from '../../helpers/run.ts'
import { sourceFiles } from '../../structure/source-files.ts'
import { cleanup, temp } from '../helpers.ts'

afterAll(cleanup)

/** The mocked disk: `budget` bytes left (Infinity: a healthy disk); `short` writes return less than asked before failing. */
const disk = vi.hoisted(() => ({ budget: Infinity, calls: 0 }))

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' })
}

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  // A short write takes what fits and returns its count; the next write finds the disk full.
  const take = (length: number): number => {
    if (disk.budget <= 0) throw enospc()
    const n = Math.min(length, disk.budget)
    disk.budget -= n
    return n
  }
  const writeSync = ((fd: number, buffer: Uint8Array | string, offset?: number, length?: number, position?: number | null) => {
    disk.calls++
    if (typeof buffer === 'string') buffer = Buffer.from(buffer)
    const start = typeof offset === 'number' ? offset : 0
    const len = typeof length === 'number' ? length : buffer.length - start
    const n = take(len)
    return fs.writeSync(fd, buffer, start, n, position ?? null)
  }) as typeof fs.writeSync
  const write = ((fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null, callback: (e: Error | null, n?: number) => void) => {
    disk.calls++
    let n: number
    try {
      n = take(length)
    } catch (error) {
      return callback(error as Error)
    }
    fs.write(fd, buffer, offset, n, position, callback)
  }) as typeof fs.write
  return { ...fs, default: { ...fs, writeSync, write }, writeSync, write }
})

vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>()
  const open = async (...args: Parameters<typeof fsp.open>) => {
    const handle = await fsp.open(...args)
    const write = async (buffer: Uint8Array, offset = 0, length = buffer.length - offset, position: number | null = null) => {
      disk.calls++
      if (disk.budget <= 0) throw enospc()
      const n = Math.min(length, disk.budget)
      disk.budget -= n
      return handle.write(buffer, offset, n, position)
    }
    const writeFile = async (data: string | Uint8Array) => {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data
      // Node's own loop, over the mocked disk.
      for (let done = 0; done < bytes.length; ) done += (await write(bytes, done)).bytesWritten
    }
    const get = (target: typeof handle, key: string | symbol): unknown => {
      if (key === 'write') return write
      if (key === 'writeFile') return writeFile
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    }
    return new Proxy(handle, { get })
  }
  const writeFile = async (path: Parameters<typeof fsp.writeFile>[0], data: string | Uint8Array, options?: { flag?: string }) => {
    const handle = await open(path as string, options?.flag ?? 'w')
    try {
      await handle.writeFile(data)
    } finally {
      await handle.close()
    }
  }
  return { ...fsp, default: { ...fsp, open, writeFile }, open, writeFile }
})

const files = await import('../../../src/core/support/files.ts')
const { writeOutputs, planOutputs } = await import('../../../src/core/support/outputs.ts')

afterEach(() => {
  disk.budget = Infinity
  disk.calls = 0
})

/** What a folder holds: name → content (temp files would show up here). */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, realFs.readFileSync(join(dir, name), 'latin1')]))
}

type Writer = { name: string; write: (path: string, data: Uint8Array) => Promise<void> | void; appends?: boolean }

const WRITERS: Writer[] = [
  { name: 'writeFileAtomicSync', write: (path, data) => files.writeFileAtomicSync(path, data) },
  { name: 'writeFileAtomicSync without fsync', write: (path, data) => files.writeFileAtomicSync(path, data, { fsync: false }) },
  { name: 'writeFileAtomic', write: (path, data) => files.writeFileAtomic(path, data) },
  {
    name: 'stageFile + commit',
    write: async (path, data) => {
      const staged = await files.stageFile(path, data)
      await staged.commit()
    },
  },
  { name: 'writeNewFileSync', write: (path, data) => files.writeNewFileSync(`${path}.new`, data) },
  {
    name: 'createWithHead',
    write: (path, data) => {
      const fd = files.createWithHead(`${path}.seg`, data)
      realFs.closeSync(fd)
    },
  },
  { name: 'appendToFileSync', write: (path, data) => files.appendToFileSync(path, Buffer.from(data).toString('latin1')), appends: true },
  {
    name: 'writeFully (an open segment)',
    write: async (path, data) => {
      const fd = realFs.openSync(path, 'a')
      try {
        await files.writeFully(fd, data, path)
      } finally {
        realFs.closeSync(fd)
      }
    },
    appends: true,
  },
  {
    name: 'writeOutputs (--json-out and --records-out)',
    write: async (path, data) => {
      const [out] = await planOutputs([{ flag: '--json-out', path }], [])
      await writeOutputs([{ output: out!, content: Buffer.from(data).toString('latin1') }])
    },
  },
]

describe('every writer of files.ts under a disk that fills mid-file', () => {
  it.each(WRITERS)('$name: a short write then ENOSPC renames nothing into place, leaves no temp file, and throws ENOSPC', async ({ write, appends }) => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 70_000 }), fc.double({ min: 0, max: 0.999, noNaN: true }), async (size, cut) => {
        const dir = temp('sceptic-short-')
        const path = join(dir, 'out.json')
        const before = 'the previous content\n'
        writeFileSync(path, before)
        const data = Buffer.alloc(size, 0x61)
        disk.budget = Math.floor(size * cut)
        let thrown: unknown
        try {
          await write(path, data)
        } catch (error) {
          thrown = error
        }
        disk.budget = Infinity
        expect(thrown, 'a write that stopped short must not succeed').toBeDefined()
        const code = (thrown as NodeJS.ErrnoException).code ?? (thrown as { message: string }).message
        expect(String(code)).toMatch(/ENOSPC/)
        const after = contents(dir)
        // Nothing but the target, which holds what it held (an append may have added a torn tail only).
        expect(Object.keys(after)).toEqual(['out.json'])
        if (appends) expect(after['out.json']!.startsWith(before)).toBe(true)
        else expect(after['out.json']).toBe(before)
      }),
      { numRuns: 12 },
    )
  })

  it.each(WRITERS.filter((w) => !w.appends))('$name: on a healthy disk every byte lands (the checks cost nothing)', async ({ name, write }) => {
    const dir = temp('sceptic-short-')
    const path = join(dir, 'out.json')
    const data = Buffer.from('x'.repeat(100_000))
    await write(path, data)
    const target = name === 'writeNewFileSync' ? `${path}.new` : name === 'createWithHead' ? `${path}.seg` : path
    expect(realFs.readFileSync(target).length).toBe(data.length)
  })
})

// --- the model commands, in a process: the disk fills while model.onnx is written ---

/** A preload that makes writes to any file named like `model.onnx` stop after SHORT_BYTES bytes, as a full disk does. */
const PRELOAD = `
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
const real = fs.writeSync
let left = Number(process.env.SHORT_BYTES)
fs.writeSync = function (fd, buffer, offset, length, position) {
  let name = ''
  try { name = fs.readlinkSync('/proc/self/fd/' + fd) } catch {}
  if (!/model\\.onnx/.test(name) || typeof buffer === 'string') return real.apply(this, arguments)
  const start = typeof offset === 'number' ? offset : 0
  const len = typeof length === 'number' ? length : buffer.length - start
  if (left <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' })
  const n = Math.min(len, left)
  left -= n
  return real.call(this, fd, buffer, start, n, position ?? null)
}
syncBuiltinESMExports()
`

function modelCopy(): string {
  const dir = join(temp('sceptic-short-model-'), 'model')
  cpSync(join(ROOT, 'examples/models/tiny'), dir, { recursive: true })
  return dir
}

describe('optimize-model and quantize-model on a disk that fills mid model.onnx', () => {
  const preload = (): string => {
    const dir = temp('sceptic-short-preload-')
    writeFileSync(join(dir, 'short.mjs'), PRELOAD)
    return join(dir, 'short.mjs')
  }
  const CLI = join(ROOT, 'dist/cli/main.js')

  it.each([
    ['optimize-model', [] as string[]],
    ['quantize-model', ['--bits', '8']],
  ])('%s: exit 3, one line naming --model-out, no model.onnx in place (not "wrote")', async (command, extra) => {
    const model = modelCopy()
    const out = join(model, '..', 'out')
    const { code, stdout, stderr } = await run(process.execPath, ['--import', preload(), CLI, command, model, '--model-out', out, ...extra], {
      env: { SHORT_BYTES: '4096' },
      timeoutMs: 60_000,
    })
    expect(stdout).not.toMatch(/wrote/)
    expect(code, stdout + stderr).toBe(3)
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/cannot write --model-out \(ENOSPC\)/)
    expect(existsSync(join(out, 'model.onnx'))).toBe(false)
    expect(existsSync(out) ? readdirSync(out).filter((name) => name.includes('tmp')) : []).toEqual([])
  })

  it('optimize-model on a healthy disk (the same preload, a budget past the file) still writes every byte', async () => {
    const model = modelCopy()
    const out = join(model, '..', 'out')
    mkdirSync(out)
    const { code, stderr } = await run(process.execPath, ['--import', preload(), CLI, 'optimize-model', model, '--model-out', out], { env: { SHORT_BYTES: '1e12' } })
    expect(code, stderr).toBe(0)
    expect(readFileSync(join(out, 'model.onnx')).length).toBeGreaterThan(4096)
  })
})

// --- the class, swept over the source: one home for the write loop ---

describe('one home for writing bytes: src/core/support/files.ts', () => {
  const WRITES = ['writeSync', 'writeFileSync', 'appendFileSync', 'write', 'writeFile', 'appendFile', 'createWriteStream', 'writev', 'writevSync']
  const imported = (source: string): string[] => {
    const found: string[] = []
    for (const match of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"](?:node:)?fs(?:\/promises)?['"]/g))
      for (const part of match[1]!.split(',')) {
        const name = part.trim().split(/\s+as\s+/)[0]!.trim()
        if (WRITES.includes(name)) found.push(name)
      }
    for (const match of source.matchAll(/\bfs(?:p|Promises)?\.(writeSync|writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream)\s*\(/g)) found.push(match[1]!)
    return found
  }

  it('sees planted write imports', () => {
    expect(imported(`import { readFileSync, writeFileSync } from 'node:fs'\nimport { writeFile as wf } from 'fs/promises'`)).toEqual(['writeFileSync', 'writeFile'])
    expect(imported(`import { close as closeFd, write } from 'node:fs'\nfs.appendFileSync(p, t)`)).toEqual(['write', 'appendFileSync'])
    expect(imported(`import { readFile, stat } from 'node:fs/promises'`)).toEqual([])
  })

  it('no module of src/ but files.ts writes to a file itself (so every write goes through the checked loop)', () => {
    const home = join(ROOT, 'src/core/support/files.ts')
    const offenders = sourceFiles(join(ROOT, 'src'))
      .filter((file) => file !== home)
      .flatMap((file) => imported(readFileSync(file, 'utf8')).map((name) => `${relative(ROOT, file)}: ${name}`))
    expect(offenders).toEqual([])
  })
})
