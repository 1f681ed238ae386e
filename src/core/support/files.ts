/**
 * Writing and deleting files (test/structure/fs-home.test.ts keeps rename, unlink and rm
 * out of the rest of src/). A target that is not a regular file is never renamed over: a
 * character device (`/dev/null`) is written in place, anything else refused with a
 * {@link NotAFileError}. Writes go to a temporary name and are renamed in, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  write,
  writeSync,
  type Stats,
} from 'node:fs'
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ConfigError } from './errors.ts'

/** A cache directory tag's file name (so backup tools skip the folder), and its first line, as the spec fixes it. */
export const CACHEDIR_TAG = 'CACHEDIR.TAG'
export const CACHEDIR_SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55'

/** What an existing path is, links followed; `missing` when nothing is there. */
export type PathKind = 'missing' | 'file' | 'device' | 'folder' | 'fifo' | 'socket' | 'block device' | 'other'

/** The kind of `stats` (`undefined`: missing). */
export function kindOf(stats: Stats | undefined): PathKind {
  if (stats === undefined) return 'missing'
  if (stats.isFile()) return 'file'
  if (stats.isCharacterDevice()) return 'device'
  if (stats.isDirectory()) return 'folder'
  if (stats.isFIFO()) return 'fifo'
  if (stats.isSocket()) return 'socket'
  if (stats.isBlockDevice()) return 'block device'
  return 'other'
}

/** The kind of `path`, links followed; `missing` for nothing there or a dangling link. */
export function pathKind(path: string): PathKind {
  try {
    return kindOf(statSync(path))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw error
  }
}

/** How a message names a kind: "a folder", "a named pipe (FIFO)", … */
export function describeKind(kind: PathKind): string {
  const names: Record<PathKind, string> = {
    missing: 'missing',
    file: 'a regular file',
    device: 'a character device',
    folder: 'a folder',
    fifo: 'a named pipe (FIFO)',
    socket: 'a socket',
    'block device': 'a block device',
    other: 'not a regular file',
  }
  return names[kind]
}

/** An output target that exists and is neither a regular file nor a character device (a ConfigError: exit 2 in the CLI). */
export class NotAFileError extends ConfigError {
  readonly kind: PathKind
  readonly code = 'ENOTFILE'
  constructor(path: string, kind: PathKind) {
    super(`${path} is ${describeKind(kind)}, not a regular file; it is never replaced`)
    this.kind = kind
  }
}

/** How `path` will be written: `replace` (missing or a regular file) or `in-place` (a character device). Refuses anything else. */
export function writeMode(path: string): 'replace' | 'in-place' {
  const kind = pathKind(path)
  if (kind === 'missing' || kind === 'file') return 'replace'
  if (kind === 'device') return 'in-place'
  throw new NotAFileError(path, kind)
}

/** A fresh temp name beside `path`: `<path>.tmp-<pid>-<random>`. */
export function tempName(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
}

/** A hidden temp name beside `path`: `.<name>.<pid>-<random>.tmp` (outputs, so globs over the folder skip it). */
function hiddenTempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
}

/** A write that stopped short: the disk filled (or the device took no more) before every byte was written. */
export class ShortWriteError extends Error {
  readonly code = 'ENOSPC'
  constructor(path: string, written: number, total: number) {
    super(`${path}: wrote ${written} of ${total} bytes (no space left on the device?)`)
  }
}

const bytesOf = (data: string | Uint8Array): Uint8Array => (typeof data === 'string' ? Buffer.from(data, 'utf8') : data)

/**
 * Write every byte of `data` at the file's position, however many calls it takes. The one
 * write loop of src/: a call that makes no progress (a full disk after a short write) is a
 * {@link ShortWriteError}, so no caller ever takes a truncated file for a written one.
 */
export function writeFullySync(fd: number, data: string | Uint8Array, path: string): void {
  const bytes = bytesOf(data)
  let done = 0
  while (done < bytes.length) {
    const wrote = writeSync(fd, bytes, done, bytes.length - done)
    if (!(wrote > 0)) throw new ShortWriteError(path, done, bytes.length)
    done += wrote
  }
}

/** One write(2) at the file's position: the bytes it took. */
const writeAsync = (fd: number, bytes: Uint8Array, offset: number, length: number): Promise<number> =>
  new Promise((resolve, reject) => write(fd, bytes, offset, length, null, (error, written) => (error ? reject(error) : resolve(written))))

/** {@link writeFullySync} for a file descriptor, asynchronous (appends at the file's position). */
export async function writeFully(fd: number, data: string | Uint8Array, path: string): Promise<void> {
  const bytes = bytesOf(data)
  let done = 0
  while (done < bytes.length) {
    const wrote = await writeAsync(fd, bytes, done, bytes.length - done)
    if (!(wrote > 0)) throw new ShortWriteError(path, done, bytes.length)
    done += wrote
  }
}

/** {@link writeFullySync} for an open file handle. */
async function writeHandleFully(handle: FileHandle, data: string | Uint8Array, path: string): Promise<void> {
  const bytes = bytesOf(data)
  let done = 0
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, null)
    if (!(bytesWritten > 0)) throw new ShortWriteError(path, done, bytes.length)
    done += bytesWritten
  }
}

/** Write `data` to `path` opened with `flag` (`wx`: a new file only; `w`: a device in place), every byte, fsynced when asked. */
function writeWholeSync(path: string, data: string | Uint8Array, flag: 'wx' | 'w', fsync: boolean): void {
  const fd = openSync(path, flag)
  try {
    writeFullySync(fd, data, path)
    if (fsync) fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Write `data` to a new file `path` (never an existing one: EEXIST), every byte, without
 * fsync (a lock, or a file inside a folder this process is still building). A failed
 * write removes the file it created: nothing half-written is left under the name.
 */
export function writeNewFileSync(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, 'wx')
  try {
    writeFullySync(fd, data, path)
  } catch (error) {
    closeSync(fd)
    removeFileSync(path)
    throw error
  }
  closeSync(fd)
}

/** Write `data` to `temp`, a new file (never an existing one), fsynced when asked. */
function writeNewSync(temp: string, data: string | Uint8Array, fsync: boolean): void {
  writeWholeSync(temp, data, 'wx', fsync)
}

/** {@link writeWholeSync}, asynchronous, without fsync. */
async function writeWhole(path: string, data: string | Uint8Array, flag: 'wx' | 'w'): Promise<void> {
  const handle = await open(path, flag)
  try {
    await writeHandleFully(handle, data, path)
  } finally {
    await handle.close()
  }
}

/**
 * Write `data` to `path` atomically: a temp file beside it (fsynced unless `fsync: false`),
 * renamed over it. A character device is written in place; a folder, FIFO, socket or
 * block device is a {@link NotAFileError}, and nothing is written.
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: { fsync?: boolean } = {}): void {
  if (writeMode(path) === 'in-place') return writeWholeSync(path, data, 'w', false)
  const temp = tempName(path)
  try {
    writeNewSync(temp, data, options.fsync ?? true)
    // Checked again just before the rename: the target may have changed since.
    if (writeMode(path) === 'in-place') {
      writeWholeSync(path, data, 'w', false)
      removeFileSync(temp)
      return
    }
    renameSync(temp, path)
  } catch (error) {
    removeFileSync(temp)
    throw error
  }
}

/** {@link writeFileAtomicSync}, asynchronous (no fsync: a baseline or report is rewritten on the next run). */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const staged = await stageFile(path, data)
  try {
    await staged.commit()
  } catch (error) {
    await staged.discard()
    throw error
  }
}

/**
 * Create `path` holding `head`, open for appending, without a moment where it exists
 * without `head`: written under a temp name (which readers skip), fsynced, then renamed
 * in. Refuses an existing `path`. Returns the open file descriptor.
 */
export function createWithHead(path: string, head: Uint8Array): number {
  if (pathKind(path) !== 'missing') throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' })
  const temp = tempName(path)
  const fd = openSync(temp, 'wx')
  try {
    writeFullySync(fd, head, temp)
    fsyncSync(fd)
    renameSync(temp, path)
    return fd
  } catch (error) {
    closeSync(fd)
    removeFileSync(temp)
    throw error
  }
}

/** A write prepared by {@link stageFile}: `commit` puts it in place, `discard` removes what it left. */
export interface StagedFile {
  /** Whether the target is written in place (a character device): already written, nothing to undo. */
  readonly inPlace: boolean
  commit(): Promise<void>
  discard(): Promise<void>
}

/**
 * Prepare a write of `content` to `path`. A missing or regular target: written now to a
 * hidden temp file beside it, renamed over it by `commit` (which checks the target again).
 * A character device: written in place now (a full device fails here, with ENOSPC).
 * Anything else: a {@link NotAFileError}.
 */
export async function stageFile(path: string, content: string | Uint8Array): Promise<StagedFile> {
  if (writeMode(path) === 'in-place') {
    await writeWhole(path, content, 'w')
    return { inPlace: true, commit: async () => {}, discard: async () => {} }
  }
  const temp = hiddenTempName(path)
  try {
    await writeWhole(temp, content, 'wx')
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return {
    inPlace: false,
    async commit() {
      const now = await stat(path).catch(() => undefined)
      const kind = kindOf(now)
      if (kind !== 'missing' && kind !== 'file') throw new NotAFileError(path, kind)
      await rename(temp, path)
    },
    discard: () => unlink(temp).catch(() => {}),
  }
}

/** Append `text` to `path` (created when missing); refuses a target that is not a regular file or character device. */
export function appendToFileSync(path: string, text: string): void {
  writeMode(path)
  const fd = openSync(path, 'a')
  try {
    writeFullySync(fd, text, path)
  } finally {
    closeSync(fd)
  }
}

/** Remove the file `path`; nothing there is fine. */
export function removeFileSync(path: string): void {
  rmSync(path, { force: true })
}

/** Remove the file `path`; nothing there is fine. */
export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error
  })
}

/** Remove `dir` when it is an empty folder; a folder with anything left in it, or none, is kept as it is. */
export function removeEmptyFolderSync(dir: string): void {
  try {
    rmdirSync(dir)
  } catch {
    // not empty, or not there: left alone
  }
}

/** Remove a folder tree this process created itself (a `mkdtemp` folder); never for a user's folder. */
export function removeOwnTreeSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

/** Move a folder this process just wrote (a partial cache entry) to `to`, where nothing is: a rename, so readers see all of it or none. */
export function moveOwnFolderSync(from: string, to: string): void {
  renameSync(from, to)
}
