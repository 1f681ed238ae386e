/**
 * Reading JSONL files line by line, strictly: every line must be valid UTF-8 (an
 * invalid byte is a {@link DataError} naming the line, never a silent U+FFFD), a
 * UTF-8 BOM and CRLF endings are accepted, and a file above
 * {@link STREAM_THRESHOLD_BYTES} is read as a stream, since one string that large
 * is past what V8 can hold. Anything but a regular file (a FIFO, `/dev/zero`) is always
 * streamed, and a line longer than {@link MAX_LINE_BYTES} is a DataError naming it: no
 * input grows the process without bound.
 */
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { DataError } from '../support/errors.ts'
import { MAX_LINE_BYTES, mib } from '../support/read-bounded.ts'

export { MAX_LINE_BYTES } from '../support/read-bounded.ts'

/** Files larger than this (512 MiB) are read as a stream of chunks instead of one buffer. */
export const STREAM_THRESHOLD_BYTES = 512 * 1024 * 1024

/** Options for {@link readJsonlLines}. */
export interface JsonlReadOptions {
  /** Read as a stream above this many bytes. Default {@link STREAM_THRESHOLD_BYTES}. */
  streamAbove?: number
  /** Chunk size of the stream in bytes. Default 1 MiB. */
  chunkBytes?: number
  /** The longest line accepted, in bytes. Default {@link MAX_LINE_BYTES}. */
  maxLineBytes?: number
}

/** One line of a JSONL file: its 1-based number and its text (no line ending, no BOM). */
export interface JsonlLine {
  /** 1-based line number. */
  readonly line: number
  readonly text: string
}

const LF = 0x0a

/**
 * Every line of a file, blank ones included, decoded as strict UTF-8. Read errors
 * (missing file, a folder) are a DataError naming the file and the errno code.
 */
export async function* readJsonlLines(path: string, options: JsonlReadOptions = {}): AsyncGenerator<JsonlLine> {
  const { streamAbove = STREAM_THRESHOLD_BYTES, chunkBytes = 1024 * 1024, maxLineBytes = MAX_LINE_BYTES } = options
  const chunks = await openChunks(path, streamAbove, chunkBytes)
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  let line = 0
  let carry: Buffer[] = []
  let carried = 0
  const tooLong = () =>
    new DataError(`is longer than ${mib(maxLineBytes)}, the longest line a decision file may hold (is this a decision file?)`, { file: path, line: line + 1 })
  const emit = (bytes: Buffer): JsonlLine => {
    line++
    let text: string
    try {
      text = decoder.decode(bytes)
    } catch {
      throw new DataError(`is not valid UTF-8 (byte ${firstInvalidByte(bytes) + 1} of the line). Save the file as UTF-8.`, { file: path, line })
    }
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    if (text.endsWith('\r')) text = text.slice(0, -1)
    return { line, text }
  }
  try {
    for await (const chunk of chunks) {
      let start = 0
      for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
        const piece = chunk.subarray(start, end)
        if (carried + piece.length > maxLineBytes) throw tooLong()
        yield emit(carry.length > 0 ? Buffer.concat([...carry, piece]) : piece)
        carry = []
        carried = 0
        start = end + 1
      }
      if (start < chunk.length) {
        carried += chunk.length - start
        if (carried > maxLineBytes) throw tooLong()
        carry.push(chunk.subarray(start))
      }
    }
  } catch (error) {
    if (error instanceof DataError) throw error
    throw readError(path, error)
  }
  if (carry.length > 0) yield emit(Buffer.concat(carry))
}

/** The file as one chunk (small files) or a stream of chunks (large ones). */
async function openChunks(path: string, streamAbove: number, chunkBytes: number): Promise<AsyncIterable<Buffer> | Iterable<Buffer>> {
  try {
    const found = await stat(path)
    // A FIFO or device says size 0 and may never end: streamed, so the line cap holds.
    if (found.size > streamAbove || (!found.isFile() && !found.isDirectory())) return createReadStream(path, { highWaterMark: chunkBytes })
    return [await readFile(path)]
  } catch (error) {
    throw readError(path, error)
  }
}

function readError(path: string, error: unknown): DataError {
  return new DataError(`cannot read decision file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { file: path })
}

/**
 * 0-based offset of the first byte of the first invalid UTF-8 sequence in `bytes`
 * (called only on bytes that failed to decode): a lead byte cut short points at the
 * lead, not at the byte after it.
 */
function firstInvalidByte(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let lead = 0
  for (let i = 0; i < bytes.length; i++) {
    const isContinuation = (bytes[i]! & 0xc0) === 0x80
    try {
      decoder.decode(bytes.subarray(i, i + 1), { stream: true })
    } catch {
      return !isContinuation && lead < i && bytes[lead]! >= 0xc0 ? lead : i
    }
    if (!isContinuation) lead = i
  }
  // Nothing threw: the line ends inside a sequence, which starts at the last lead byte.
  return lead
}
