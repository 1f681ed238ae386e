/**
 * Reading input files with a bound. A regular file larger than the cap is refused before a
 * byte is read; anything else (a FIFO, `/dev/zero`, a character device) is streamed and
 * refused as soon as it passes the cap, so no input makes the process grow without bound.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { DataError } from './errors.ts'

/** The largest JSON or JSONL file read whole (run JSON, records, part files): 256 MiB. */
export const MAX_TEXT_BYTES = 256 * 1024 * 1024

/** The longest line of a decision file: 64 MiB. A longer one is a DataError naming the line. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024

/** `n` bytes for a message: "64 MiB". */
export function mib(n: number): string {
  return `${+(n / (1024 * 1024)).toFixed(1)} MiB`
}

/** The reason of a read error: its code, or its first message line. */
function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? String((error as Error)?.message ?? error).split('\n')[0]!
}

/**
 * The text of `path` (UTF-8), at most `maxBytes` bytes of it. A missing file, a folder or
 * a read error is a DataError `cannot read it (CODE)` (or `cannotRead(CODE)`; `missing`
 * replaces the message for ENOENT); a file past the cap is a DataError naming the cap.
 */
export async function readTextBounded(path: string, options: { maxBytes?: number; missing?: string; cannotRead?: (code: string) => string } = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? MAX_TEXT_BYTES
  const fail = (error: unknown): DataError => {
    const code = codeOf(error)
    const say = options.cannotRead ?? ((c: string) => `cannot read it (${c})`)
    return new DataError(code === 'ENOENT' && options.missing ? options.missing : say(code), { file: path })
  }
  const tooLarge = () => new DataError(`is larger than ${mib(maxBytes)}, the most this command reads from one file`, { file: path })
  const found = await stat(path).catch((error: unknown) => {
    throw fail(error)
  })
  if (found.isDirectory()) throw fail(Object.assign(new Error('a folder'), { code: 'EISDIR' }))
  if (found.isFile() && found.size > maxBytes) throw tooLarge()
  const chunks: Buffer[] = []
  let total = 0
  const stream = createReadStream(path, { highWaterMark: 1 << 20 })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length
      if (total > maxBytes) throw tooLarge()
      chunks.push(chunk)
    }
  } catch (error) {
    if (error instanceof DataError) throw error
    throw fail(error)
  } finally {
    stream.destroy()
  }
  return Buffer.concat(chunks).toString('utf8')
}
