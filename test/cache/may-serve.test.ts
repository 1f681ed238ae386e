// Whether a cache could serve a hit, read before a run starts loading a model: a warm run that never
// calls the scorer must not pay for the load; a cache that is off, missing or has no segment cannot serve.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cacheMayServe } from '../../src/cache/config.ts'

const root = mkdtempSync(join(tmpdir(), 'sceptic-may-serve-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const env = {}

describe('cacheMayServe', () => {
  it('is true only for a cache that is read and holds a segment', () => {
    const dir = join(root, 'cache')
    expect(cacheMayServe({ dir }, { cwd: root, env })).toBe(false) // missing
    mkdirSync(join(dir, 'segments'), { recursive: true })
    expect(cacheMayServe({ dir }, { cwd: root, env })).toBe(false) // empty
    writeFileSync(join(dir, 'segments', 'x.seg.tmp-1-abcdef12'), '')
    expect(cacheMayServe({ dir }, { cwd: root, env })).toBe(false) // a temp file is no segment
    writeFileSync(join(dir, 'segments', 'lq1-1-ab-vm.seg'), '')
    expect(cacheMayServe({ dir }, { cwd: root, env })).toBe(true)
    expect(cacheMayServe({ dir, mode: 'read-only' }, { cwd: root, env })).toBe(true)
    expect(cacheMayServe({ dir, mode: 'off' }, { cwd: root, env })).toBe(false)
    expect(cacheMayServe(false, { cwd: root, env })).toBe(false)
    // The environment's directory and mode count as the run's would.
    expect(cacheMayServe({}, { cwd: root, env: { SCEPTIC_CACHE_DIR: dir } })).toBe(true)
    expect(cacheMayServe({}, { cwd: root, env: { SCEPTIC_CACHE_DIR: dir, SCEPTIC_CACHE_MODE: 'off' } })).toBe(false)
  })
})
