/**
 * The on-disk record format of the score cache (docs/cache.md, "Store").
 *
 * A segment file is a 16-byte header (`SCEPTICC`, format version, reserved) and then
 * records, each `u32 length | u32 crc32(payload) | payload`, little-endian. A payload
 * is the 32-byte request key, the 16-byte scorer id, `u16` option count, that many
 * float64 values and the UTF-8 JSON of the scorer's flags (empty when none).
 * A record is written in one `write` and the file is fsynced after each batch, so a
 * process killed mid-write leaves at most one torn record at the tail, which the
 * reader detects (length past the end, or a checksum mismatch) and skips.
 */
import { crc32 } from 'node:zlib'

/** The first 8 bytes of every segment. */
export const MAGIC = Buffer.from('SCEPTICC', 'latin1')
/** Format version this code writes and reads. A newer one is ignored with a warning. */
export const FORMAT_VERSION = 1
/** Header bytes: magic, u32 version, u32 reserved. */
export const HEADER_BYTES = 16
/** Bytes of a request key (sha256). */
export const KEY_BYTES = 32
/** Bytes of a scorer id (a sha256 prefix). */
export const SCORER_ID_BYTES = 16

/** One cached vector. */
export interface CacheEntry {
  /** Request key, {@link KEY_BYTES} bytes as a latin1 string (a Map key). */
  readonly key: string
  /** Scorer id, hex. */
  readonly scorer: string
  /** The probability vector exactly as the scorer returned it (float64). */
  readonly vector: Float64Array
  /** Flags the scorer raised on it (e.g. `missing_logprobs`); empty when none. */
  readonly flags: readonly string[]
}

/**
 * Whether a stored vector is one a scorer could have returned: finite, ≥ 0 and not all
 * zero. The writer stores only such vectors, so any other is a record damaged or written
 * by hand (its checksum can still be right): the reader ignores it and the request is scored again.
 */
export function usableVector(vector: ArrayLike<number>): boolean {
  let sum = 0
  for (let i = 0; i < vector.length; i++) {
    const v = vector[i]!
    if (!Number.isFinite(v) || v < 0) return false
    sum += v
  }
  return sum > 0 && Number.isFinite(sum)
}

/** The header of a segment of the current version. */
export function encodeHeader(): Buffer {
  const header = Buffer.alloc(HEADER_BYTES)
  MAGIC.copy(header, 0)
  header.writeUInt32LE(FORMAT_VERSION, 8)
  return header
}

/** One framed record. */
export function encodeRecord(entry: CacheEntry): Buffer {
  const flags = entry.flags.length > 0 ? Buffer.from(JSON.stringify(entry.flags), 'utf8') : Buffer.alloc(0)
  const n = entry.vector.length
  const payload = Buffer.alloc(KEY_BYTES + SCORER_ID_BYTES + 2 + 8 * n + flags.length)
  payload.write(entry.key, 0, KEY_BYTES, 'latin1')
  payload.write(entry.scorer, KEY_BYTES, SCORER_ID_BYTES, 'hex')
  payload.writeUInt16LE(n, KEY_BYTES + SCORER_ID_BYTES)
  let offset = KEY_BYTES + SCORER_ID_BYTES + 2
  for (let i = 0; i < n; i++, offset += 8) payload.writeDoubleLE(entry.vector[i]!, offset)
  flags.copy(payload, offset)
  const frame = Buffer.alloc(8)
  frame.writeUInt32LE(payload.length, 0)
  frame.writeUInt32LE(crc32(payload), 4)
  return Buffer.concat([frame, payload])
}

/** What reading one segment found. */
export interface DecodedSegment {
  /** Complete, checksummed records, in file order. */
  readonly entries: CacheEntry[]
  /** Why the file (or its tail) was not read, for a one-line warning; `undefined` when clean. */
  readonly problem?: string
  /** Whether the file is a segment of this format version (a foreign or newer file must be left alone). */
  readonly ours: boolean
  /** Bytes up to the end of the last complete record (where a torn tail starts). */
  readonly end: number
}

/** Decode a whole segment. Never throws: a bad header or a torn record ends the read with a `problem`. */
export function decodeSegment(bytes: Buffer): DecodedSegment {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC))
    return { entries: [], problem: 'not a vitest-sceptic cache segment (foreign or truncated header); ignored', ours: false, end: 0 }
  const version = bytes.readUInt32LE(8)
  if (version !== FORMAT_VERSION)
    return { entries: [], problem: `cache format version ${version}, this vitest-sceptic reads version ${FORMAT_VERSION}; ignored`, ours: false, end: 0 }
  const entries: CacheEntry[] = []
  let offset = HEADER_BYTES
  while (offset < bytes.length) {
    const torn = `torn or corrupt record at byte ${offset} (a writer was interrupted?); the ${entries.length} complete entries before it are kept`
    if (offset + 8 > bytes.length) return { entries, problem: torn, ours: true, end: offset }
    const length = bytes.readUInt32LE(offset)
    const sum = bytes.readUInt32LE(offset + 4)
    const start = offset + 8
    if (length < KEY_BYTES + SCORER_ID_BYTES + 2 || start + length > bytes.length) return { entries, problem: torn, ours: true, end: offset }
    const payload = bytes.subarray(start, start + length)
    if (crc32(payload) !== sum) return { entries, problem: torn, ours: true, end: offset }
    const n = payload.readUInt16LE(KEY_BYTES + SCORER_ID_BYTES)
    const flagsAt = KEY_BYTES + SCORER_ID_BYTES + 2 + 8 * n
    if (flagsAt > length) return { entries, problem: torn, ours: true, end: offset }
    const vector = new Float64Array(n)
    for (let i = 0; i < n; i++) vector[i] = payload.readDoubleLE(KEY_BYTES + SCORER_ID_BYTES + 2 + 8 * i)
    let flags: readonly string[] = []
    if (flagsAt < length) {
      try {
        const parsed: unknown = JSON.parse(payload.subarray(flagsAt).toString('utf8'))
        if (!Array.isArray(parsed) || !parsed.every((f) => typeof f === 'string')) return { entries, problem: torn, ours: true, end: offset }
        flags = parsed
      } catch {
        return { entries, problem: torn, ours: true, end: offset }
      }
    }
    entries.push({
      key: payload.subarray(0, KEY_BYTES).toString('latin1'),
      scorer: payload.subarray(KEY_BYTES, KEY_BYTES + SCORER_ID_BYTES).toString('hex'),
      vector,
      flags,
    })
    offset = start + length
  }
  return { entries, ours: true, end: offset }
}
