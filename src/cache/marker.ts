/**
 * Which folders are caches (docs/cache.md, "Store"): a `CACHEDIR.TAG` (so backup tools skip
 * it) is written before the first file, and clearing or compacting refuses a folder without one. An older
 * cache, whose every entry is a name the cache writes, is recognised and gets its marker.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../core/support/errors.ts'
import { CACHEDIR_SIGNATURE, CACHEDIR_TAG, writeFileAtomicSync } from '../core/support/files.ts'
import { digestsDir, scorersDir, segmentsDir } from './layout.ts'

/** The marker's file name. */
export const MARKER = CACHEDIR_TAG
/** The marker's first line, as the spec fixes it. */
export const MARKER_SIGNATURE = CACHEDIR_SIGNATURE
const MARKER_TEXT = `${MARKER_SIGNATURE}\n# This file is a cache directory tag created by vitest-sceptic.\n# For information about cache directory tags, see https://bford.info/cachedir/\n`

const TEMP = String.raw`(?:\.tmp-\d+-[0-9a-f]{8})?`
/** Names the cache writes in each of its folders (a write-then-rename temp file included). */
const OWN_NAMES: Readonly<Record<'segments' | 'scorers' | 'digests', RegExp>> = {
  segments: new RegExp(String.raw`^[0-9a-z]+-(?:\d+-[0-9a-f]+(?:-[A-Za-z0-9._]+)?|c-[0-9a-f]+)\.seg${TEMP}$`),
  scorers: new RegExp(String.raw`^[0-9a-f]{32}\.json${TEMP}$`),
  digests: new RegExp(String.raw`^[0-9a-f]{32}\.json${TEMP}$`),
}

const MARKER_TEMP = new RegExp(String.raw`^CACHEDIR\.TAG\.tmp-\d+-[0-9a-f]{8}$`)

/** Whether `name` in the cache's folder `folder` is a file the cache writes. */
export function isCacheFileName(folder: keyof typeof OWN_NAMES, name: string): boolean {
  return OWN_NAMES[folder].test(name)
}

/** The cache's files under `dir` that clearing removes: every file of its three folders whose name the cache writes. */
export function cacheFiles(dir: string): string[] {
  const out: string[] = []
  for (const [folder, path] of [['segments', segmentsDir(dir)], ['scorers', scorersDir(dir)], ['digests', digestsDir(dir)]] as const) {
    let names: string[]
    try {
      names = readdirSync(path)
    } catch {
      continue
    }
    for (const name of names) if (isCacheFileName(folder, name) && isFile(join(path, name))) out.push(join(path, name))
  }
  return out
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** Whether `dir` holds the marker: a regular file starting with the signature. */
export function hasMarker(dir: string): boolean {
  const path = join(dir, MARKER)
  if (!isFile(path)) return false
  try {
    const fd = openSync(path, 'r')
    try {
      const head = Buffer.alloc(MARKER_SIGNATURE.length)
      return readSync(fd, head, 0, head.length, 0) === head.length && head.toString('latin1') === MARKER_SIGNATURE
    } finally {
      closeSync(fd)
    }
  } catch {
    return false
  }
}

/** The first entry of `dir` the cache would not have written (relative path), or `undefined` when every one is the cache's. */
function foreignEntry(dir: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const folder = entry.name as keyof typeof OWN_NAMES
    // The marker being written by another process at this moment (its temp name) is the cache's too.
    if (MARKER_TEMP.test(entry.name) && entry.isFile()) continue
    // A hidden file beside (a `.gitignore` holding `*`, a `.keep`) is the user's, but harmless: never read or removed.
    if (entry.name.startsWith('.') && entry.isFile()) continue
    if (!Object.hasOwn(OWN_NAMES, entry.name)) return entry.name
    if (!entry.isDirectory()) return entry.name
    for (const inner of readdirSync(join(dir, entry.name), { withFileTypes: true }))
      if (!inner.isFile() || !isCacheFileName(folder, inner.name)) return join(entry.name, inner.name)
  }
  return undefined
}

/**
 * What `dir` is: `missing` (nothing there), or `cache` (it has the marker, or it is a
 * cache written before the marker, which is given one now). Anything else is a
 * {@link ConfigError} naming the folder and a file the cache did not write, with `action`
 * (what was refused) at the end.
 */
export function checkCacheDir(dir: string, action: string): 'missing' | 'cache' {
  let kind: 'missing' | 'folder' | 'other'
  try {
    kind = statSync(dir).isDirectory() ? 'folder' : 'other'
  } catch {
    kind = 'missing'
  }
  if (kind === 'missing') return 'missing'
  if (kind === 'other') throw new ConfigError(`${dir}: not a folder, so not a vitest-sceptic cache; ${action}`)
  if (hasMarker(dir)) return 'cache'
  let foreign: string | undefined
  try {
    foreign = foreignEntry(dir)
  } catch (error) {
    throw new ConfigError(`${dir}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); ${action}`)
  }
  // Another process may have renamed its marker into place after our first look: the folder is a cache then.
  if (foreign === MARKER && hasMarker(dir)) return 'cache'
  if (foreign !== undefined)
    throw new ConfigError(`${dir}: not a vitest-sceptic cache (no ${MARKER}, and it holds ${foreign}, which the cache did not write); ${action}`)
  writeMarker(dir)
  return 'cache'
}

const claimed = new Set<string>()

/**
 * Make `dir` a cache before the first file is written into it: created with its marker
 * when missing or empty; a legacy cache gets its marker; a folder holding anything else
 * is refused (the cache never writes into a user's folder).
 */
export function claimCacheDir(dir: string): void {
  if (claimed.has(dir) && hasMarker(dir)) return
  mkdirSync(dir, { recursive: true })
  checkCacheDir(dir, 'give the cache a folder of its own')
  if (!hasMarker(dir)) writeMarker(dir)
  claimed.add(dir)
}

function writeMarker(dir: string): void {
  try {
    writeFileAtomicSync(join(dir, MARKER), MARKER_TEXT)
  } catch {
    // a read-only cache folder stays a legacy cache: recognised by its names again next time
  }
}
