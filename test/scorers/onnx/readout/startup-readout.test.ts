// The readout chosen at startup: the letter head where it can be made, otherwise the full
// logits with the reason, and never a temporary copy left behind or a multi-GB copy made.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkOrCopy } from '../../../../src/scorers/onnx/model/graph-io.ts'
import { locateModel } from '../../../../src/scorers/onnx/model/model-dir.ts'
import { optimizeModel } from '../../../../src/scorers/onnx/transform/optimize.ts'
import { readReadoutFile } from '../../../../src/scorers/onnx/readout/readout-file.ts'
import { removeStale, stem } from '../../../../src/scorers/onnx/readout/readout-temp.ts'
import { prepareReadout } from '../../../../src/scorers/onnx/readout/startup-readout.ts'
import { cleanupTemp, makeModel, tempDir } from '../helpers.ts'

// A temporary directory of this file's own, so counting copies cannot see other files' scorers.
const ownTmp = tempDir('sceptic-own-tmp-')
const savedTmp = process.env.TMPDIR
process.env.TMPDIR = ownTmp
afterAll(() => {
  process.env.TMPDIR = savedTmp
  if (savedTmp === undefined) delete process.env.TMPDIR
  cleanupTemp()
})

// Faults switched on per test: onnx-proto missing, hard links failing (another file system).
const faults = vi.hoisted(() => ({ noOnnxProto: false, noLink: false }))
vi.mock(import('../../../../src/scorers/onnx/model/graph-io.ts'), async (importOriginal) => {
  const original = await importOriginal()
  return {
    ...original,
    loadOnnxProto: (command?: string) => {
      if (faults.noOnnxProto) throw new Error("Cannot find module 'onnx-proto'")
      return original.loadOnnxProto(command)
    },
    linkOrCopy: (from: string, to: string, copy?: boolean) => (faults.noLink && copy === false ? false : original.linkOrCopy(from, to, copy)),
  }
})
afterEach(() => Object.assign(faults, { noOnnxProto: false, noLink: false }))

const copies = () => readdirSync(ownTmp).filter((name) => name.startsWith('sceptic-readout-'))

describe('prepareReadout', () => {
  const dir = makeModel({ tokenizer: 'bpe', decoder: { vocab: 2048, seed: 31 }, externalDataMinBytes: 1024 })
  const files = locateModel(dir)

  it('makes the letter head in a temporary directory, external data linked; dispose() removes it', async () => {
    const readout = await prepareReadout({ files, mode: 'auto', sidecar: undefined, render: undefined })
    expect(readout.summary).toBe('last position, 40 letter rows (made at startup)')
    expect(readout.modelPath).not.toBe(files.modelPath)
    expect(readout.readoutFile!.letterIds).toHaveLength(40)
    expect(readout.readoutFile!.vocab).toBe(2048)
    expect(existsSync(join(dirname(readout.modelPath), 'model.onnx_data'))).toBe(true)
    expect(dirname(readout.modelPath).startsWith(ownTmp)).toBe(true)
    expect(copies()).toHaveLength(1)
    readout.dispose()
    readout.dispose()
    expect(existsSync(dirname(readout.modelPath))).toBe(false)
    expect(copies()).toHaveLength(0)
  })

  it("a chat template's own ending adds its letter tokens", async () => {
    const plain = await prepareReadout({ files, mode: 'auto', sidecar: undefined, render: undefined })
    const chat = await prepareReadout({ files, mode: 'auto', sidecar: undefined, render: Object.assign(async (texts: readonly string[]) => texts.map((text) => `<user>${text}</user> reply=`), { close: async () => {} }) })
    plain.dispose()
    chat.dispose()
    // After "reply=" the letters are " A".." T" (already kept): nothing new, and no column twice.
    expect(chat.readoutFile!.letterIds).toEqual(plain.readoutFile!.letterIds)
    expect(new Set(chat.readoutFile!.letterIds).size).toBe(chat.readoutFile!.letterIds.length)
  })

  it("readout: 'full' and a model from optimize-model are loaded as they are", async () => {
    const full = await prepareReadout({ files, mode: 'full', sidecar: undefined, render: undefined })
    expect(full).toMatchObject({ modelPath: files.modelPath, readoutFile: undefined, summary: "full logits: readout: 'full' was asked for" })
    const out = join(tempDir(), 'letters')
    await optimizeModel(dir, out)
    const optimized = locateModel(out)
    const sidecar = readReadoutFile(optimized.modelPath)
    const before = copies().length
    const loaded = await prepareReadout({ files: optimized, mode: 'auto', sidecar, render: undefined })
    expect(loaded).toMatchObject({ modelPath: optimized.modelPath, readoutFile: sidecar, summary: 'last position, letter rows (sceptic optimize-model)' })
    expect(copies().length).toBe(before)
  })

  it('without onnx-proto: the full logits, saying why', async () => {
    faults.noOnnxProto = true
    const before = copies().length
    const readout = await prepareReadout({ files, mode: 'auto', sidecar: undefined, render: undefined })
    expect(readout).toMatchObject({ modelPath: files.modelPath, readoutFile: undefined, summary: 'full logits: onnx-proto is not installed (npm i -D onnx-proto@8 for the letter readout)' })
    expect(copies().length).toBe(before)
  })

  it('external data that cannot be hard-linked: the full logits, no copy made, the temporary directory gone', async () => {
    faults.noLink = true
    const before = copies().length
    const readout = await prepareReadout({ files, mode: 'auto', sidecar: undefined, render: undefined })
    expect(readout.modelPath).toBe(files.modelPath)
    expect(readout.summary).toMatch(/^full logits: .*model\.onnx_data cannot be hard-linked into .* and copying it was not asked for$/)
    expect(copies().length).toBe(before)
  })
})

describe('linkOrCopy', () => {
  it('links; over a different existing file it copies, or with copy false leaves it and says false', async () => {
    const dir = makeModel({ tokenizer: 'bpe' })
    const from = join(dir, 'tokenizer.json')
    const to = join(tempDir(), 'linked.json')
    expect(linkOrCopy(from, to)).toBe(true)
    expect(linkOrCopy(from, to, false)).toBe(true) // already the same file
    const other = join(tempDir(), 'other.json')
    expect(linkOrCopy(join(dir, 'model.onnx'), other)).toBe(true)
    expect(linkOrCopy(from, other, false)).toBe(false)
  })
})

describe('copies left by a killed process', () => {
  it('are removed by the next process; copies of running processes and of other hosts stay', () => {
    const root = tempDir('sceptic-stale-')
    const gone = spawnSync(process.execPath, ['-e', '']).pid! // exited: its id names no running process
    const names = [`${stem(gone)}aB3dE9`, `${stem(process.ppid)}xY7zQ1`, `${stem(process.pid)}mN4pR2`, `sceptic-readout-otherhost-${gone}-kL5sT8`, 'unrelated']
    for (const name of names) mkdirSync(join(root, name))
    expect(removeStale(root)).toEqual([`${stem(gone)}aB3dE9`])
    expect(readdirSync(root).sort()).toEqual(names.slice(1).sort())
  })
})
