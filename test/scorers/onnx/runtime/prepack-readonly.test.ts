// A packed-weights folder the file system will not write (a read-only mount of a prepared
// cache, a full disk): its entries still load, and nothing else fails the run: no entry is
// written, and the scorer says why. Writes are refused by a mocked node:fs, since root
// ignores file permissions.
import * as fs from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { useTempDir } from '../../../helpers/temp.ts'

const refuse = vi.hoisted(() => ({ code: undefined as string | undefined }))
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>()
  const guarded = <F extends (...args: never[]) => unknown>(fn: F): F =>
    ((...args: never[]) => {
      if (refuse.code) throw Object.assign(new Error(`${refuse.code}: refused`), { code: refuse.code })
      return fn(...args)
    }) as F
  const writes = { writeFileSync: guarded(real.writeFileSync), mkdirSync: guarded(real.mkdirSync), utimesSync: guarded(real.utimesSync), rmSync: guarded(real.rmSync), renameSync: guarded(real.renameSync) }
  return { ...real, ...writes, default: { ...real, ...writes } }
})

const { planPrepack, prepackKey } = await import('../../../../src/scorers/onnx/runtime/prepack-cache.ts')

describe('a packed-weights folder that cannot be written', () => {
  const root = useTempDir('sceptic-prepack-ro-')
  const graph = join(root, 'model.onnx')
  fs.writeFileSync(graph, 'graph')
  const source = { graphPath: graph, files: [], salt: '' }
  const other = { graphPath: graph, files: [], salt: 'another readout' }

  it('serves the entries it has, and writes none (it says why)', () => {
    const cache = join(root, 'cache')
    const claim = planPrepack(cache, source, true, 'm') // writable: the marker is written
    if (claim.kind === 'write') claim.abandon()
    const entry = join(cache, prepackKey(source))
    fs.mkdirSync(entry)
    fs.writeFileSync(join(entry, 'model.onnx'), 'packed')
    fs.writeFileSync(join(entry, 'entry.json'), JSON.stringify({ sizes: { 'model.onnx': 6 }, readout: { summary: 'last position, 2 letter rows (made at startup)' } }))
    refuse.code = 'EROFS'
    try {
      expect(planPrepack(cache, source, true, 'm')).toMatchObject({ kind: 'load', modelPath: join(entry, 'model.onnx'), readout: { summary: 'last position, 2 letter rows (made at startup)' } })
      expect(planPrepack(cache, other, true, 'm')).toEqual({ kind: 'skip', summary: `not used: ${cache} cannot be written (EROFS)` })
      expect(planPrepack(join(root, 'missing'), source, true, 'm')).toEqual({ kind: 'skip', summary: `not used: ${join(root, 'missing')} cannot be written (EROFS)` })
    } finally {
      refuse.code = undefined
    }
  })

  it('a disk that fills while an entry is written: commit says so and throws nothing', () => {
    const cache = join(root, 'full')
    const plan = planPrepack(cache, source, true, 'm')
    expect(plan.kind).toBe('write')
    if (plan.kind !== 'write') return
    fs.writeFileSync(plan.save.modelPath, 'packed')
    refuse.code = 'ENOSPC'
    try {
      expect(plan.commit(true, { summary: 's', readoutFile: undefined })).toBe('not written: ENOSPC')
    } finally {
      refuse.code = undefined
    }
  })
})
