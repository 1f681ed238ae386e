/**
 * Output files of every command, planned before any work and written all or nothing.
 *
 * Planning (before scoring): each output's real path (symlinks followed) must differ
 * from every input (also by device and inode, so a hard link is caught) and from every
 * other output, and lie outside every folder the tool keeps (the score cache); its missing parent folders are created; a probe file proves the folder
 * is writable. An existing target that is not a regular file is never renamed over: a
 * character device (`/dev/null`) is written in place, anything else (a folder, FIFO,
 * socket, block device) is refused, and `-` is refused. Writing (after the work): each
 * output goes to a temporary file beside it, and only when every one is written are
 * they renamed into place, so a failure never leaves half the artifacts.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, open, realpath, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { ConfigError, DataError } from './errors.ts'
import { describeKind, kindOf, NotAFileError, removeFile, stageFile, type StagedFile } from './files.ts'

/** One output a command was asked to write. */
export interface OutputRequest {
  /** The option that named it, for messages, e.g. `--json-out`. */
  readonly flag: string
  /** The path as given. */
  readonly path: string
}

/** An output checked by {@link planOutputs}. */
export interface PlannedOutput extends OutputRequest {
  /** Absolute real path it will be written to (its folder's symlinks resolved). */
  readonly target: string
  /** A character device (`/dev/null`): written in place, never replaced. */
  readonly device?: boolean
}

/** Device and inode of an existing path, links followed: the same file under any spelling or hard link. */
async function fileId(path: string): Promise<string | undefined> {
  const found = await stat(path).catch(() => undefined)
  return found ? `${found.dev}:${found.ino}` : undefined
}

/** The code of a Node fs error, or its first message line. */
function why(error: unknown): string {
  if (error instanceof NotAFileError) return error.message
  return (error as NodeJS.ErrnoException)?.code ?? String((error as Error)?.message ?? error).split('\n')[0]!
}

/** The real path of an existing file, or of its parent plus its name when it does not exist yet. */
async function realTarget(path: string): Promise<string | undefined> {
  try {
    return await realpath(path)
  } catch {
    try {
      return join(await realpath(dirname(resolve(path))), basename(path))
    } catch {
      return undefined
    }
  }
}

/** A folder the tool keeps (the score cache): no output may land in it. */
export interface KeptFolder {
  /** The option that named it, for messages, e.g. `--cache`. */
  readonly flag: string
  /** The folder, whether or not it exists yet. */
  readonly path: string
}

/**
 * Check every output before any work is done. Refuses (a {@link ConfigError}, exit 2,
 * one line naming the option and file) an output that is an input or another output
 * after following symlinks, one inside (or at) a kept folder, one that is a folder, and
 * one whose folder cannot be created or written. Creates missing parent folders.
 * Outputs not given (`path` undefined) are skipped.
 */
export async function planOutputs(
  outputs: readonly { readonly flag: string; readonly path: string | undefined }[],
  inputs: readonly string[],
  kept: readonly KeptFolder[] = [],
): Promise<PlannedOutput[]> {
  // Resolved before any output's folder is made: an output's missing folders may be the kept folder's own.
  const keptTargets = await Promise.all(kept.map(async (folder) => ({ ...folder, target: await realPathBelow(resolve(folder.path)) })))
  const inputTargets = new Map<string, string>()
  for (const input of inputs) {
    const target = await realTarget(input)
    if (target !== undefined) inputTargets.set(target, input)
    const id = await fileId(input)
    if (id !== undefined) inputTargets.set(id, input)
  }
  const planned: PlannedOutput[] = []
  for (const { flag, path } of outputs) {
    if (path === undefined) continue
    if (path === '') throw new ConfigError(`${flag} needs a file name`)
    // `-` is not standard output here (the report is printed there): never a file named `-` either.
    if (path === '-') throw new ConfigError(`${flag} -: writing to standard output is not supported (the report is printed there); give a file name`)
    const folder = dirname(resolve(path))
    const real = await realPathBelow(resolve(path))
    const keeper = keptTargets.find(({ target }) => real === target || real.startsWith(target.endsWith(sep) ? target : target + sep))
    if (keeper) throw new ConfigError(`${flag} ${path}: refusing to write into ${keeper.flag} ${keeper.path}, which the tool keeps; give the output a path outside it`)
    try {
      await makeFolders(folder)
    } catch (error) {
      throw new ConfigError(`${flag} ${path}: cannot create its folder (${why(error)})`)
    }
    const target = (await realTarget(path))!
    const id = await fileId(target)
    const input = inputTargets.get(target) ?? (id === undefined ? undefined : inputTargets.get(id))
    if (input !== undefined) throw new ConfigError(`${flag} ${path}: refusing to overwrite the input file ${input}`)
    const kind = kindOf(await stat(target).catch(() => undefined))
    if (kind === 'folder') throw new ConfigError(`${flag} ${path}: is a folder, not a file`)
    if (kind !== 'missing' && kind !== 'file' && kind !== 'device')
      throw new ConfigError(`${flag} ${path}: is ${describeKind(kind)}, not a regular file; outputs are written to regular files (or written in place to a character device such as /dev/null)`)
    const device = kind === 'device'
    // Two outputs to one device (`/dev/null` twice) are fine: each is written in place.
    const other = device ? undefined : planned.find((output) => output.target === target)
    if (other) throw new ConfigError(`${flag} ${path} and ${other.flag} ${other.path} are the same file; give each output its own`)
    // A device is written in place: nothing is created beside it (in /dev), so no probe.
    if (!device)
      await probe(dirname(target)).catch((error: unknown) => {
        throw new ConfigError(`${flag} ${path}: cannot write there (${why(error)})`)
      })
    planned.push({ flag, path, target, ...(device ? { device } : {}) })
  }
  return planned
}

/** An absolute path with the symlinks of its nearest existing ancestor followed: the same place under any spelling, existing yet or not. */
async function realPathBelow(path: string): Promise<string> {
  let existing = path
  const rest: string[] = []
  while (dirname(existing) !== existing && (await stat(existing).catch(() => undefined)) === undefined) {
    rest.unshift(basename(existing))
    existing = dirname(existing)
  }
  const base = await realpath(existing).catch(() => existing)
  return rest.reduce((at, name) => join(at, name), base)
}

/**
 * Check an output folder (`--model-out DIR`) before any work: after following symlinks
 * it must be neither one of the input folders (a model directory and its `onnx/`
 * subfolder, whose files the command reads) nor an existing file. Refused with a
 * {@link ConfigError} (exit 2) naming the option. The command itself creates it.
 */
export async function planOutputDir(flag: string, path: string | undefined, inputDirs: readonly string[]): Promise<string> {
  if (path === undefined || path === '') throw new ConfigError(`${flag} needs a folder name`)
  const target = await realTarget(path)
  for (const input of inputDirs) {
    const real = await realTarget(input)
    if (target !== undefined && real !== undefined && target === real)
      throw new ConfigError(`${flag} ${path}: refusing to write into the input folder ${input}; give the output its own folder`)
  }
  const kind = target === undefined ? 'missing' : kindOf(await stat(target).catch(() => undefined))
  if (kind !== 'missing' && kind !== 'folder') throw new ConfigError(`${flag} ${path}: is ${kind === 'file' ? 'a file' : describeKind(kind)}, not a folder`)
  return path
}

/**
 * `mkdir -p`, one level at a time from the nearest existing ancestor. Node's own
 * recursive mkdir never settles under some pseudo file systems (`/proc/x`), so it is
 * not used: every step here is a plain mkdir that fails or succeeds.
 */
async function makeFolders(folder: string): Promise<void> {
  const missing: string[] = []
  let current = folder
  let found = await stat(current).catch(() => undefined)
  while (!found && dirname(current) !== current) {
    missing.push(current)
    current = dirname(current)
    found = await stat(current).catch(() => undefined)
  }
  if (found && !found.isDirectory()) throw Object.assign(new Error(`${current} is a file`), { code: 'ENOTDIR' })
  for (const dir of missing.reverse())
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
}

/** Create and remove a file in `folder`: the only check that holds for root and read-only mounts alike. */
async function probe(folder: string): Promise<void> {
  const file = join(folder, `.sceptic-probe-${process.pid}-${randomBytes(4).toString('hex')}`)
  const handle = await open(file, 'wx')
  await handle.close()
  await removeFile(file)
}

/**
 * Write planned outputs all or nothing: each to a temporary file beside its target,
 * then rename them all into place; a character device is written in place, after every
 * file's temporary copy (so a full device, ENOSPC, leaves no file written). On a failure
 * the temporary files are removed, no file target is touched, and a {@link DataError}
 * (exit 3) names the file.
 */
export async function writeOutputs(outputs: readonly { readonly output: PlannedOutput; readonly content: string }[]): Promise<void> {
  const staged: StagedFile[] = []
  const ordered = [...outputs.filter((o) => !o.output.device), ...outputs.filter((o) => o.output.device)]
  try {
    for (const { output, content } of ordered) {
      try {
        staged.push(await stageFile(output.target, content))
      } catch (error) {
        const wrote = staged.some((file) => file.inPlace) ? 'no file was written' : 'no output was written'
        throw new DataError(`cannot write ${output.flag} (${why(error)}); ${wrote}`, { file: output.path })
      }
    }
    for (const [i, { output }] of ordered.entries()) {
      try {
        await staged[i]!.commit()
      } catch (error) {
        throw new DataError(`cannot move ${output.flag} into place (${why(error)})`, { file: output.path })
      }
    }
  } catch (error) {
    await Promise.all(staged.map((file) => file.discard()))
    throw error
  }
}
