// One home for a file's digest and its memo: the synchronous and asynchronous faces give the
// same sha256 and follow one memo rule (served while the stat matches, ctime included; stored
// only when the file did not change while it was hashed; `above`, `write: false`).
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileDigest, fileDigestSync, hashFile, hashFileSync, memoName } from '../../../src/core/support/file-digest.ts'

const root = mkdtempSync(join(tmpdir(), 'sceptic-file-digest-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const fresh = () => {
  const dir = join(root, String(n++))
  mkdirSync(dir)
  return dir
}
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')
const faces = [
  ['async', fileDigest],
  ['sync', async (...args: Parameters<typeof fileDigestSync>) => fileDigestSync(...args)],
] as const

describe('file digest', () => {
  it('both faces hash the bytes, across block boundaries', async () => {
    const dir = fresh()
    for (const size of [0, 1, 4 * 2 ** 20, 4 * 2 ** 20 + 3]) {
      const path = join(dir, `f${size}`)
      const bytes = Buffer.alloc(size, 0x5a)
      if (size > 0) bytes[size - 1] = 1
      writeFileSync(path, bytes)
      expect(await hashFile(path)).toBe(sha(bytes))
      expect(hashFileSync(path)).toBe(sha(bytes))
      for (const [, digest] of faces) expect(await digest(path)).toBe(sha(bytes))
    }
  })

  it('a missing path or a folder has no digest', async () => {
    const dir = fresh()
    for (const [, digest] of faces) {
      expect(await digest(join(dir, 'missing'))).toBeUndefined()
      expect(await digest(dir, { file: join(dir, 'memo') })).toBeUndefined()
    }
    expect(existsSync(join(dir, 'memo'))).toBe(false)
  })

  for (const [face, digest] of faces)
    it(`${face}: the memo serves while the stat matches; a write, even with the mtime put back, re-hashes`, async () => {
      const dir = fresh()
      const path = join(dir, 'weights.bin')
      const memo = { file: join(dir, `${memoName(path)}.memo`) }
      writeFileSync(path, 'one')
      const time = new Date('2026-01-01T00:00:00Z')
      utimesSync(path, time, time)
      expect(await digest(path, memo)).toBe(sha('one'))
      const saved = JSON.parse(readFileSync(memo.file, 'utf8'))
      expect(saved.sha256).toBe(sha('one'))
      // A poisoned memo under the same stat is served: proof the bytes were not read again.
      writeFileSync(memo.file, JSON.stringify({ ...saved, sha256: 'f'.repeat(64) }))
      expect(await digest(path, memo)).toBe('f'.repeat(64))
      // Same size, mtime put back: ctime moved, so the memo no longer matches.
      writeFileSync(path, 'two')
      utimesSync(path, time, time)
      expect(await digest(path, memo)).toBe(sha('two'))
      // An unreadable memo is recomputed, never trusted.
      writeFileSync(memo.file, '{not json')
      expect(await digest(path, memo)).toBe(sha('two'))
      expect(JSON.parse(readFileSync(memo.file, 'utf8')).sha256).toBe(sha('two'))
    })

  it('above: smaller files are hashed every time and never remembered; write: false never writes', async () => {
    const dir = fresh()
    const path = join(dir, 'small')
    writeFileSync(path, 'x'.repeat(100))
    const stored: boolean[] = []
    for (const [, digest] of faces) {
      expect(await digest(path, { file: join(dir, 'a.memo'), above: 100, used: (s) => stored.push(s) })).toBe(sha('x'.repeat(100)))
      expect(await digest(path, { file: join(dir, 'b.memo'), write: false })).toBe(sha('x'.repeat(100)))
    }
    expect(existsSync(join(dir, 'a.memo')) || existsSync(join(dir, 'b.memo'))).toBe(false)
    expect(stored).toEqual([])
    // Past `above` it is remembered: stored once, then served.
    for (const [, digest] of faces) await digest(path, { file: join(dir, 'c.memo'), above: 99, used: (s) => stored.push(s) })
    expect(stored).toEqual([true, false])
  })

  it('a memo that cannot be written (its folder refused) still gives the digest', async () => {
    const dir = fresh()
    const path = join(dir, 'f')
    writeFileSync(path, 'y')
    for (const [, digest] of faces) {
      expect(await digest(path, { file: join(dir, 'no', 'such', 'folder', 'm') })).toBe(sha('y'))
      expect(
        await digest(path, {
          file: join(dir, 'm'),
          beforeWrite: () => {
            throw new Error('read-only')
          },
        }),
      ).toBe(sha('y'))
    }
    expect(existsSync(join(dir, 'm'))).toBe(false)
  })
})
