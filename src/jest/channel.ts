/**
 * How suite meta travels from Jest's test workers to the reporter: one JSON file per suite in
 * a run folder the reporter makes. Jest's test results have no field a test file can fill
 * (Vitest's task meta has no Jest counterpart), and workers are separate processes (or the
 * main one, in band), so files are the channel. The reporter makes the folder when Jest builds
 * it, before any worker starts, and names it in the environment the workers inherit; it reads
 * and removes the folder after the run. Without the reporter nothing is written.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeOwnTreeSync, writeFileAtomicSync } from '../core/support/files.ts'
import type { ScepticSuiteMeta } from './decide.ts'

/** The environment variable naming the run folder. */
export const RUN_DIR_ENV = 'SCEPTIC_JEST_RUN_DIR'
const PREFIX = 'vitest-sceptic-jest-'

/** One suite's entry: its test file (absolute), its place in the file and its meta. */
export interface SuiteEntry {
  file: string
  index: number
  meta: ScepticSuiteMeta
  /** Its title path as Jest names its tests (the describe titles and its own, joined by spaces); absent when none of its tests ran. */
  path?: string
}

/** Make a fresh run folder and name it to the workers Jest starts after this. */
export function openRunDir(): string {
  const dir = mkdtempSync(join(tmpdir(), PREFIX))
  process.env[RUN_DIR_ENV] = dir
  return dir
}

/** Write a suite's entry, when a reporter opened a run folder (else nothing). */
export function writeSuiteEntry(entry: SuiteEntry): void {
  const dir = process.env[RUN_DIR_ENV]
  if (!dir || !dir.startsWith(join(tmpdir(), PREFIX))) return
  // By place, not name: two suites of one name in different describe() blocks are two entries.
  const name = createHash('sha256').update(`${entry.file}\0${entry.index}`).digest('hex').slice(0, 24)
  try {
    // Whole or not at all (the checked write loop), so the reporter never reads half an entry.
    writeFileAtomicSync(join(dir, `${name}.json`), JSON.stringify(entry), { fsync: false })
  } catch {
    // The folder is gone (the run ended under us); the report lacks this suite, the tests still gate.
  }
}

/** Every entry written in the run folder, then the folder removed (it holds only what this wrote). */
export function readSuiteEntries(dir: string): SuiteEntry[] {
  const entries: SuiteEntry[] = []
  try {
    for (const name of readdirSync(dir).sort()) if (/^[0-9a-f]{24}\.json$/.test(name)) entries.push(JSON.parse(readFileSync(join(dir, name), 'utf8')) as SuiteEntry)
  } finally {
    removeOwnTreeSync(dir)
    if (process.env[RUN_DIR_ENV] === dir) delete process.env[RUN_DIR_ENV]
  }
  return entries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.index - b.index))
}
