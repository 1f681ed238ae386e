/**
 * The external-data files an ONNX graph names (`TensorProto.external_data`, key `location`),
 * whatever they are called: ORT loads them, so the score cache must key them. Read by walking
 * the protobuf's field tags and skipping every payload (tensor bytes are never read), so a
 * 2 GB graph with inline weights costs a few thousand small reads. Never throws: a file that
 * is not a well-formed graph yields what was found before the damage (ORT reports the rest).
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { dirname, isAbsolute, join, normalize, sep } from 'node:path'

const WINDOW = 1 << 16
// Subgraphs (If, Loop, Scan bodies) nest; a graph made to recurse without end stops here.
const MAX_DEPTH = 16

/** A byte source over a file, read through a small window. */
class Source {
  private readonly buffer = Buffer.alloc(WINDOW)
  private start = 0
  private length = 0

  constructor(private readonly fd: number) {}

  byte(at: number): number {
    if (at < this.start || at >= this.start + this.length) {
      this.start = at
      this.length = readSync(this.fd, this.buffer, 0, WINDOW, at)
      if (this.length === 0) throw new RangeError('past the end')
    }
    return this.buffer[at - this.start]!
  }

  bytes(at: number, n: number): Buffer {
    const out = Buffer.alloc(n)
    if (readSync(this.fd, out, 0, n, at) !== n) throw new RangeError('past the end')
    return out
  }
}

/** Fields of one message in [from, to): number, wire type and payload range (length-delimited) or end. */
function* fields(source: Source, from: number, to: number): Generator<{ field: number; wire: number; start: number; end: number }> {
  let at = from
  while (at < to) {
    const [key, afterKey] = varint(source, at)
    const field = Math.floor(key / 8)
    const wire = key % 8
    let start = afterKey
    let end: number
    if (wire === 0) end = varint(source, afterKey)[1]
    else if (wire === 1) end = afterKey + 8
    else if (wire === 5) end = afterKey + 4
    else if (wire === 2) {
      const [size, afterSize] = varint(source, afterKey)
      start = afterSize
      end = afterSize + size
    } else throw new RangeError(`wire type ${wire}`)
    if (end > to || field === 0) throw new RangeError('malformed')
    yield { field, wire, start, end }
    at = end
  }
}

function varint(source: Source, at: number): [number, number] {
  let value = 0
  let scale = 1
  for (let i = 0; i < 10; i++) {
    const byte = source.byte(at + i)
    value += (byte & 0x7f) * scale
    if (byte < 0x80) return [value, at + i + 1]
    scale *= 128
  }
  throw new RangeError('varint too long')
}

/** Locations named by the tensors of a graph, its nodes' attributes and their subgraphs. */
function walkGraph(source: Source, from: number, to: number, depth: number, out: Set<string>): void {
  if (depth > MAX_DEPTH) return
  for (const f of fields(source, from, to)) {
    if (f.wire !== 2) continue
    if (f.field === 5) walkTensor(source, f.start, f.end, out) // initializer
    else if (f.field === 15) walkSparse(source, f.start, f.end, out) // sparse_initializer
    else if (f.field === 1) walkNode(source, f.start, f.end, depth, out) // node
  }
}

function walkNode(source: Source, from: number, to: number, depth: number, out: Set<string>): void {
  for (const f of fields(source, from, to)) {
    if (f.wire !== 2 || f.field !== 5) continue // attribute
    for (const a of fields(source, f.start, f.end)) {
      if (a.wire !== 2) continue
      if (a.field === 5 || a.field === 10) walkTensor(source, a.start, a.end, out) // t, tensors
      else if (a.field === 6 || a.field === 11) walkGraph(source, a.start, a.end, depth + 1, out) // g, graphs
      else if (a.field === 22 || a.field === 23) walkSparse(source, a.start, a.end, out) // sparse_tensor(s)
    }
  }
}

function walkSparse(source: Source, from: number, to: number, out: Set<string>): void {
  for (const f of fields(source, from, to)) if (f.wire === 2 && (f.field === 1 || f.field === 2)) walkTensor(source, f.start, f.end, out)
}

function walkTensor(source: Source, from: number, to: number, out: Set<string>): void {
  for (const f of fields(source, from, to)) {
    if (f.wire !== 2 || f.field !== 13) continue // external_data
    let key: string | undefined
    let value: string | undefined
    for (const e of fields(source, f.start, f.end)) {
      if (e.wire !== 2 || e.end - e.start > 4096) continue
      const text = source.bytes(e.start, e.end - e.start).toString('utf8')
      if (e.field === 1) key = text
      else if (e.field === 2) value = text
    }
    if (key === 'location' && value !== undefined) out.add(value)
  }
}

/**
 * Absolute paths of the external-data files `modelPath`'s graph names, sorted; only names
 * inside the model's folder (as ORT requires), so a crafted name never makes the cache hash
 * a file elsewhere.
 */
export function declaredExternalData(modelPath: string): string[] {
  const names = new Set<string>()
  let fd: number | undefined
  try {
    fd = openSync(modelPath, 'r')
    const source = new Source(fd)
    let end = 0
    try {
      end = Number.MAX_SAFE_INTEGER
      for (const f of fields(source, 0, end)) if (f.field === 7 && f.wire === 2) walkGraph(source, f.start, f.end, 0, names)
    } catch {
      // the end of the file, or damage: keep what was found
    }
  } catch {
    return []
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  const folder = dirname(modelPath)
  const out = new Set<string>()
  for (const name of names) {
    const relative = normalize(name)
    if (name === '' || isAbsolute(name) || relative === '..' || relative.startsWith(`..${sep}`) || name.includes('\0')) continue
    out.add(join(folder, relative))
  }
  return [...out].sort()
}
