/**
 * Weights packed once per machine (docs/onnx.md, "Pre-packed weights"). Creating an ORT
 * session re-lays out every constant MatMul weight for its CPU kernels: at the 24-layer
 * shape about 1.1 s of each worker's 1.5 s load, paid by every worker of every run, each
 * with its own copy of the packed weights. With `prepackCache`, the first worker of a run
 * that finds no entry also saves ORT's optimized graph with those packed weights
 * (`session.save_external_prepacked_constant_initializers`); later runs load that graph,
 * and ORT maps the packed weights from disk instead of packing them, so the workers share
 * one copy in the page cache.
 *
 * Packed layouts belong to the CPU and the ORT build, so an entry is found only by a key of
 * the model's graph, its weight files (sha256 of their bytes), what its readout is
 * made from ({@link PrepackSource}), the ORT version and the CPU (model, architecture, feature
 * flags). An entry stores the readout it was written with, so a load skips the letter-head
 * rewrite and its tokenizer parse on the main thread. The folder holds only what this module
 * writes: a `CACHEDIR.TAG`, entries named by their key (the {@link KEEP} used last are kept),
 * the remembered hashes of large weight files, and while an entry is written, its lock and
 * partial folder.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus } from 'node:os'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { ConfigError, firstLineOf } from '../../../core/support/errors.ts'
import { fileDigestSync, memoName } from '../../../core/support/file-digest.ts'
import { CACHEDIR_SIGNATURE, CACHEDIR_TAG, moveOwnFolderSync, removeFileSync, removeOwnTreeSync, writeFileAtomicSync, writeNewFileSync } from '../../../core/support/files.ts'
import { hostTag, writerMayRun } from '../../../core/support/process-identity.ts'
import { externalDataOf } from '../model/model-dir.ts'
import { declaredExternalData } from '../model/external-locations.ts'
import type { ReadoutFile } from '../readout/readout-file.ts'
import type { PrepackSave } from './protocol.ts'
import { cpuFeatures } from '../../../core/support/cpu-kind.ts'

/** Complete entries kept: a new one evicts the oldest beyond this (each is about 1.7× the weights). */
export const KEEP = 2
const MARKER = CACHEDIR_TAG
const MARKER_TEXT = `${CACHEDIR_SIGNATURE}\n# vitest-sceptic prepacked ORT weights (docs/onnx.md, "Pre-packed weights").\n`
const ENTRY_FILE = 'entry.json'
const KEY = /^[0-9a-f]{32}$/
/** Files hashed on every run up to this size; a larger one's hash is remembered by its stat. */
const WHOLE_BYTES = 64 * 2 ** 20
/** A remembered hash: `<32 hex of the path>.digest`. */
const DIGEST_SUFFIX = '.digest'
const DIGEST_NAME = /^[0-9a-f]{32}\.digest$/
/** Remembered hashes kept (a new one evicts the one used longest ago). */
const KEEP_DIGESTS = 64

/** What an entry's graph reads out, stored with it: a load needs neither the tokenizer nor the letter-head rewrite. */
export interface PrepackedReadout {
  readonly summary: string
  readonly readoutFile: ReadoutFile | undefined
}

/**
 * What an entry is made from, besides the CPU and the ORT build: the model's graph (and every
 * weight file it names), the other files the readout reads (the tokenizer's, a sidecar), and
 * the readout's own inputs as text (its mode, prompt endings, this package's version).
 */
export interface PrepackSource {
  readonly graphPath: string
  readonly files: readonly string[]
  readonly salt: string
}

/** What startup does with the cache: load an entry, write one while loading, or neither (and why). */
export type PrepackPlan =
  | { readonly kind: 'load'; readonly modelPath: string; readonly readout: PrepackedReadout; readonly summary: string }
  | { readonly kind: 'write'; readonly save: PrepackSave; readonly summary: string; commit(saved: boolean, readout: PrepackedReadout): string; abandon(): void }
  | { readonly kind: 'skip'; readonly summary: string }

/** The plan for `source` (the model `shownPath`, as entry.json names it) with the cache folder `dir`. Throws a {@link ConfigError} for a folder that is not one. */
export function planPrepack(dir: string, source: PrepackSource, cpuOnly: boolean, shownPath: string): PrepackPlan {
  if (!cpuOnly) return { kind: 'skip', summary: 'not used: a GPU execution provider packs its own weights' }
  const root = resolve(dir)
  // A folder that cannot be written (a read-only mount of a prepared cache) still serves its entries.
  const unwritable = (error: unknown): PrepackPlan => ({ kind: 'skip', summary: `not used: ${root} cannot be written (${(error as NodeJS.ErrnoException).code ?? firstLineOf(error)})` })
  try {
    claimFolder(root)
  } catch (error) {
    if (error instanceof ConfigError) throw error
    // The folder or its marker could not be made: only a cache already there can still serve.
    if (!existsSync(join(root, MARKER))) return unwritable(error)
  }
  ignoringWriteErrors(() => sweepDead(root))
  // Large weight files' hashes are remembered in the folder (a read-only one re-hashes).
  const key = prepackKey(source, root)
  const entry = join(root, key)
  const stored = completeEntry(entry)
  if (stored) {
    // Eviction goes by last use: a load marks the entry used.
    ignoringWriteErrors(() => utimesSync(join(entry, ENTRY_FILE), new Date(), new Date()))
    return { kind: 'load', modelPath: join(entry, 'model.onnx'), readout: stored, summary: `loaded from ${entry}` }
  }
  const lock = join(root, `${key}.lock`)
  try {
    if (!takeLock(lock)) return { kind: 'skip', summary: `not used: another process is writing ${entry}` }
  } catch (error) {
    return unwritable(error)
  }
  const partial = join(root, `${key}.partial-${hostTag()}-${process.pid}`)
  const release = () => {
    removeOwnTreeSync(partial)
    removeFileSync(lock)
  }
  try {
    removeOwnTreeSync(partial)
    mkdirSync(partial)
  } catch (error) {
    ignoringWriteErrors(release)
    return unwritable(error)
  }
  return {
    kind: 'write',
    save: { modelPath: join(partial, 'model.onnx'), dataFile: 'model.onnx_data' },
    summary: `written to ${entry}`,
    commit(saved, readout) {
      try {
        if (!saved || !existsSync(join(partial, 'model.onnx'))) return `not written: onnxruntime could not save the packed weights`
        writeNewFileSync(join(partial, ENTRY_FILE), JSON.stringify({ model: shownPath, sizes: entrySizes(partial), readout, created: new Date().toISOString() }))
        // An entry under this key that failed its size check: ours (a key-named folder of a claimed cache).
        removeOwnTreeSync(entry)
        moveOwnFolderSync(partial, entry)
        evict(root, key)
        return `written to ${entry}`
      } catch (error) {
        // A full disk while writing entry.json or moving it: the run goes on without an entry.
        return `not written: ${(error as NodeJS.ErrnoException).code ?? firstLineOf(error)}`
      } finally {
        ignoringWriteErrors(release)
      }
    },
    abandon: release,
  }
}

/** Run `write`; a file system that refuses it (read-only, full, no permission) is not an error here. */
function ignoringWriteErrors(write: () => void): void {
  try {
    write()
  } catch {
    // a read-only or full folder: the entries still load, nothing is cleaned or marked
  }
}

/** The folder, created with its marker if missing; refused when it holds anything else without this marker (another cache's included). */
function claimFolder(root: string): string {
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new ConfigError(`onnxScorer: prepackCache ${root} is not a folder`)
    const marker = join(root, MARKER)
    const ours = existsSync(marker) && statSync(marker).isFile() && readFileSync(marker, 'utf8') === MARKER_TEXT
    if (!ours && readdirSync(root).length > 0)
      throw new ConfigError(`onnxScorer: prepackCache ${root} is not empty and not a prepack cache (no ${MARKER} of its own); give a new or empty folder`)
  } else mkdirSync(root, { recursive: true })
  if (!existsSync(join(root, MARKER))) writeFileAtomicSync(join(root, MARKER), MARKER_TEXT, { fsync: false })
  return root
}

/** The readout of an entry whose every file has the size its `entry.json` recorded; `undefined` otherwise (a truncated copy is not loaded). */
function completeEntry(entry: string): PrepackedReadout | undefined {
  try {
    const { sizes, readout } = JSON.parse(readFileSync(join(entry, ENTRY_FILE), 'utf8')) as { sizes: Record<string, number>; readout?: PrepackedReadout }
    const now = entrySizes(entry)
    const whole = Object.keys(sizes).length > 0 && Object.entries(sizes).every(([name, size]) => now[name] === size)
    return whole && typeof readout?.summary === 'string' ? { summary: readout.summary, readoutFile: readout.readoutFile ?? undefined } : undefined
  } catch {
    return undefined
  }
}

/** Sizes of an entry's files, `entry.json` aside. */
function entrySizes(entry: string): Record<string, number> {
  return Object.fromEntries(readdirSync(entry).filter((name) => name !== ENTRY_FILE).map((name) => [name, statSync(join(entry, name)).size]))
}

/** Remove the partial folders and locks that processes of this host left when they died (another key's too: a bound). */
function sweepDead(root: string): void {
  for (const name of readdirSync(root)) {
    const partial = /^[0-9a-f]{32}\.partial-(.+)-(\d+)$/.exec(name)
    if (partial && !writerMayRun(partial[1], Number(partial[2]))) removeOwnTreeSync(join(root, name))
    if (!/^[0-9a-f]{32}\.lock$/.test(name)) continue
    const [host, pid] = readFileSync(join(root, name), 'utf8').trim().split(' ')
    if (!writerMayRun(host, Number(pid))) removeFileSync(join(root, name))
  }
}

/** Take `lock` (exclusive create), removing one left by a process of this host that is gone. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeNewFileSync(lock, `${hostTag()} ${process.pid}\n`)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const [host, pid] = readFileSync(lock, 'utf8').trim().split(' ')
      if (writerMayRun(host, Number(pid))) return false
      removeOwnTreeSync(join(dirname(lock), `${basename(lock, '.lock')}.partial-${host}-${pid}`))
      removeFileSync(lock)
    }
  }
  return false
}

/** Remove complete entries beyond the {@link KEEP} used last (never `keep`), and nothing but entries. */
function evict(root: string, keep: string): void {
  const entries = readdirSync(root)
    .filter((name) => KEY.test(name) && name !== keep && existsSync(join(root, name, ENTRY_FILE)))
    .map((name) => ({ name, time: statSync(join(root, name, ENTRY_FILE)).mtimeMs }))
    .sort((a, b) => b.time - a.time)
  for (const { name } of entries.slice(KEEP - 1)) removeOwnTreeSync(join(root, name))
}

/** The entry key of `source`: its graph, weight files, other files and salt, the ORT version, the CPU. */
export function prepackKey({ graphPath, files, salt }: PrepackSource, root?: string): string {
  const hash = createHash('sha256').update('sceptic-prepack/2\n').update(ortVersion()).update('\n').update(cpuFingerprint()).update('\n').update(salt)
  // Every file the graph names (whatever it is called), the usual names beside it, and the readout's files.
  const all = [graphPath, ...new Set([...declaredExternalData(graphPath), ...externalDataOf(graphPath), ...files])].filter((path) => existsSync(path))
  for (const path of all.sort()) hash.update(`\n${relative(dirname(graphPath), path)}\n`).update(fileFingerprint(path, root))
  return hash.digest('hex').slice(0, 32)
}

/**
 * A file's content hash: sha256 of its bytes, whatever its mtime says (an in-place edit that puts
 * the mtime back is another key). A large file's hash is remembered in the folder by the one rule
 * of file-digest.ts (keyed on its stat, ctime included): a run that loads an entry reads one stat,
 * not 2 GB. (Making the letter head at startup hard-links the weights, which moves their ctime:
 * the run after a write hashes once more, then loads stat-only.)
 */
function fileFingerprint(path: string, root: string | undefined): string {
  if (root === undefined) return fileDigestSync(path) ?? 'absent'
  const file = join(root, `${memoName(path)}${DIGEST_SUFFIX}`)
  // Eviction goes by last use: a served memo is marked used; a stored one prunes the oldest.
  const used = (stored: boolean) => (stored ? pruneDigests(root) : utimesSync(file, new Date(), new Date()))
  return fileDigestSync(path, { file, above: WHOLE_BYTES, used }) ?? 'absent'
}

/** Keep the {@link KEEP_DIGESTS} remembered hashes used last (one per large weight file). */
function pruneDigests(root: string): void {
  const memos = readdirSync(root)
    .filter((name) => DIGEST_NAME.test(name))
    .map((name) => ({ name, time: statSync(join(root, name)).mtimeMs }))
    .sort((a, b) => b.time - a.time)
  for (const { name } of memos.slice(KEEP_DIGESTS)) removeFileSync(join(root, name))
}

/** The installed onnxruntime-node's version. */
function ortVersion(): string {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve('onnxruntime-node'))
  for (; dirname(dir) !== dir; dir = dirname(dir)) {
    const path = join(dir, 'package.json')
    const pkg = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string }) : {}
    if (pkg.name === 'onnxruntime-node' && pkg.version) return pkg.version
  }
  return '?'
}

/** The CPU as kernels see it: model, architecture and (on Linux) the feature flags. */
function cpuFingerprint(): string {
  let flags = ''
  try {
    flags = cpuFeatures(readFileSync('/proc/cpuinfo', 'utf8')).join(' ')
  } catch {
    // Not Linux: the model name and architecture stand for the features.
  }
  return `${process.platform} ${process.arch} ${cpus()[0]?.model ?? '?'} ${flags}`
}
