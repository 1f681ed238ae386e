import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cacheStats, clearCache, compact } from '../../src/cache/admin.ts'
import { claimCacheDir } from '../../src/cache/marker.ts'
import { COMPACT_ABOVE, CacheStore } from '../../src/cache/store.ts'
import { encodeHeader, encodeRecord, type CacheEntry } from '../../src/cache/segment.ts'
import { hostTag } from '../../src/core/support/process-identity.ts'
import { useTempDirs } from '../helpers/temp.ts'

const tempDir = useTempDirs('sceptic-store-', { after: 'each' })
const temp = () => {
  const dir = tempDir()
  // A cache the cache made (its CACHEDIR.TAG): the tests then plant files in it.
  claimCacheDir(dir)
  return dir
}

const entry = (i: number, scorer = 'ab'.repeat(16)): CacheEntry => ({ key: Buffer.alloc(32, i).toString('latin1'), scorer, vector: Float64Array.from([i, 1]), flags: [] })
/** A segment as a process that has exited left it (pid 2^22 + 1 is above Linux's pid limit, so never alive). */
const deadName = (i: number) => `m0000${i.toString(36)}-4194305-0000000${i % 10}.seg`
function writeSegment(dir: string, name: string, bytes: Buffer): string {
  mkdirSync(join(dir, 'segments'), { recursive: true })
  writeFileSync(join(dir, 'segments', name), bytes)
  return join(dir, 'segments', name)
}

describe('CacheStore', () => {
  it('cuts the torn tail off a dead writer\'s segment on a read-write open, so the next open is clean; read-only never changes a file', () => {
    const dir = temp()
    const whole = Buffer.concat([encodeHeader(), encodeRecord(entry(1)), encodeRecord(entry(2))])
    const path = writeSegment(dir, deadName(1), whole.subarray(0, whole.length - 5))
    const warnings: string[] = []
    expect(new CacheStore(dir, { mode: 'read-only', onWarning: (m) => warnings.push(m) }).size).toBe(1)
    expect(statSync(path).size).toBe(whole.length - 5)
    expect(new CacheStore(dir, { onWarning: (m) => warnings.push(m) }).size).toBe(1)
    expect(warnings[1]).toMatch(/torn or corrupt record at byte \d+ .*; the torn tail was cut off$/)
    const again: string[] = []
    expect(new CacheStore(dir, { onWarning: (m) => again.push(m) }).size).toBe(1)
    expect(again).toEqual([])
  })

  it('compaction merges dead writers\' segments into one, keeps every entry, and never touches a foreign or newer file', () => {
    const dir = temp()
    for (let i = 0; i <= COMPACT_ABOVE; i++) writeSegment(dir, deadName(i), Buffer.concat([encodeHeader(), encodeRecord(entry(i))]))
    writeSegment(dir, 'foreign.seg', Buffer.from('not ours'))
    const newer = encodeHeader()
    newer.writeUInt32LE(2, 8)
    writeSegment(dir, 'newer.seg', newer)
    const warnings: string[] = []
    const store = new CacheStore(dir, { onWarning: (m) => warnings.push(m) })
    expect(store.size).toBe(COMPACT_ABOVE + 1)
    const left = readdirSync(join(dir, 'segments'))
    expect(left).toHaveLength(3)
    expect(left).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-z]+-c-[0-9a-f]+\.seg$/), 'foreign.seg', 'newer.seg']))
    expect(readFileSync(join(dir, 'segments', 'foreign.seg'), 'utf8')).toBe('not ours')
    expect(warnings).toHaveLength(2)
    for (let i = 0; i <= COMPACT_ABOVE; i++) expect(Array.from(store.get(entry(i).key)!.vector)).toEqual([i, 1])
  })

  it("leaves another host's segments alone (its processes cannot be seen from here): no repair, no compaction, no torn warning", () => {
    const dir = temp()
    const whole = Buffer.concat([encodeHeader(), encodeRecord(entry(1)), encodeRecord(entry(2))])
    // The dead pid of deadName, written by a process of another host (a container sharing the folder).
    const remote = writeSegment(dir, 'm00001-4194305-00000001-other_host.seg', whole.subarray(0, whole.length - 5))
    const local = writeSegment(dir, `m00002-4194305-00000002-${hostTag()}.seg`, Buffer.concat([encodeHeader(), encodeRecord(entry(3))]))
    const warnings: string[] = []
    expect(new CacheStore(dir, { onWarning: (m) => warnings.push(m) }).size).toBe(2)
    expect(warnings).toEqual([]) // a record the remote writer may still be appending
    expect(statSync(remote).size).toBe(whole.length - 5)
    expect(compact(dir)).toEqual({ dropped: 0, merged: 1, skippedLive: 1 })
    expect(readdirSync(join(dir, 'segments'))).toEqual(expect.arrayContaining(['m00001-4194305-00000001-other_host.seg']))
    expect(readdirSync(join(dir, 'segments'))).not.toContain(local.split('/').at(-1))
  })

  it('names a new segment by its writer: pid and host', async () => {
    const dir = temp()
    const store = new CacheStore(dir)
    await store.put([entry(1)])
    await store.close()
    expect(readdirSync(join(dir, 'segments'))).toEqual([expect.stringMatching(new RegExp(`^[0-9a-z]+-${process.pid}-[0-9a-f]+-${hostTag().replace(/\./g, '\\.')}\\.seg$`))])
  })

  it('leaves the segment of a live writer alone', async () => {
    const dir = temp()
    const live = new CacheStore(dir)
    await live.put([entry(1)])
    writeSegment(dir, deadName(2), Buffer.concat([encodeHeader(), encodeRecord(entry(2))]))
    expect(compact(dir)).toEqual({ dropped: 0, merged: 1, skippedLive: 1 })
    await live.put([entry(3)])
    await live.close()
    expect(new CacheStore(dir).size).toBe(3)
  })

  it('clear --model drops only that model\'s entries; clear removes the cache\'s own folders and nothing else', () => {
    const dir = temp()
    const model = '/models/tiny'
    mkdirSync(join(dir, 'scorers'), { recursive: true })
    writeFileSync(join(dir, 'scorers', `${'cd'.repeat(16)}.json`), JSON.stringify({ kind: 'onnx', label: model }))
    writeSegment(dir, deadName(1), Buffer.concat([encodeHeader(), encodeRecord(entry(1)), encodeRecord(entry(2, 'cd'.repeat(16))), encodeRecord(entry(3, 'cd'.repeat(16)))]))
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    expect(cacheStats(dir).scorers.map((s) => [s.label, s.entries])).toEqual([[model, 2], ['(no description)', 1]])
    expect(clearCache(dir, { model })).toEqual({ removed: 2, skippedLive: 0 })
    expect(cacheStats(dir).entries).toBe(1)
    expect(clearCache(dir)).toEqual({ removed: 1, skippedLive: 0 })
    expect(readdirSync(dir).sort()).toEqual(['CACHEDIR.TAG', 'notes.txt'])
  })
})
