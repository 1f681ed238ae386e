import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeSegment, encodeHeader, encodeRecord, HEADER_BYTES, type CacheEntry } from '../../src/cache/segment.ts'

const entryArb = fc.record({
  key: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  scorer: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('hex')),
  vector: fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 2, maxLength: 20 }).map((v) => Float64Array.from(v)),
  flags: fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
})

const segment = (entries: readonly CacheEntry[]) => Buffer.concat([encodeHeader(), ...entries.map(encodeRecord)])
const plain = (entries: readonly CacheEntry[]) => entries.map((e) => ({ ...e, vector: Array.from(e.vector), flags: [...e.flags] }))

describe('cache segments', () => {
  it('decode what they encode, bit for bit (vectors as float64, flags as written)', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 8 }), (entries) => {
        const decoded = decodeSegment(segment(entries))
        expect(decoded.problem).toBeUndefined()
        expect(plain(decoded.entries)).toEqual(plain(entries))
      }),
    )
  })

  it('a segment cut at any byte (a writer killed mid-write) keeps exactly the complete records before the cut', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { minLength: 1, maxLength: 6 }), fc.nat(), (entries, at) => {
        const bytes = segment(entries)
        const cut = HEADER_BYTES + (at % (bytes.length - HEADER_BYTES))
        const ends: number[] = []
        let offset = HEADER_BYTES
        for (const entry of entries) ends.push((offset += encodeRecord(entry).length))
        const complete = ends.filter((end) => end <= cut).length
        const decoded = decodeSegment(bytes.subarray(0, cut))
        expect(plain(decoded.entries)).toEqual(plain(entries.slice(0, complete)))
        // A cut exactly between records is a clean (shorter) file; anything else is reported.
        expect(decoded.problem === undefined).toBe(cut === HEADER_BYTES || ends.includes(cut))
      }),
    )
  })

  it('a flipped byte inside a record fails its checksum: that record and the rest are not served', () => {
    const entries: CacheEntry[] = [0, 1, 2].map((i) => ({
      key: Buffer.alloc(32, i).toString('latin1'),
      scorer: 'ab'.repeat(16),
      vector: Float64Array.from([0.25 + i, 0.75]),
      flags: [],
    }))
    const bytes = segment(entries)
    const second = HEADER_BYTES + encodeRecord(entries[0]!).length
    bytes[second + 8 + 40]! ^= 0x01 // a byte of the second record's payload
    const decoded = decodeSegment(bytes)
    expect(decoded.entries).toHaveLength(1)
    expect(decoded.problem).toMatch(/^torn or corrupt record at byte \d+ .*the 1 complete entries before it are kept$/)
  })

  it('a foreign file, an empty file and a newer format version are one-line problems with no entries', () => {
    const foreign = decodeSegment(Buffer.from('{"not": "a cache"}\n'))
    expect(foreign.entries).toEqual([])
    expect(foreign.problem).toMatch(/^not a vitest-sceptic cache segment/)
    expect(decodeSegment(Buffer.alloc(0)).problem).toMatch(/^not a vitest-sceptic cache segment/)
    const newer = encodeHeader()
    newer.writeUInt32LE(2, 8)
    const decoded = decodeSegment(Buffer.concat([newer, encodeRecord({ key: 'k'.repeat(32), scorer: '00'.repeat(16), vector: Float64Array.from([1, 0]), flags: [] })]))
    expect(decoded.entries).toEqual([])
    expect(decoded.problem).toBe('cache format version 2, this vitest-sceptic reads version 1; ignored')
    for (const problem of [foreign.problem, decoded.problem]) expect(problem).not.toContain('\n')
  })
})
