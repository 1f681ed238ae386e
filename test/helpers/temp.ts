// Temp directories that remove themselves after the tests that made them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'

/** Fresh directories in the OS temp folder, made on demand and removed together. */
export class TempDirs {
  readonly #made: string[] = []
  constructor(readonly prefix: string) {}

  make = (prefix = this.prefix): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    this.#made.push(dir)
    return dir
  }

  removeAll = (): void => {
    for (const dir of this.#made.splice(0)) rmSync(dir, { recursive: true, force: true })
  }
}

/** A fresh temp directory, made now and removed in `afterAll` of the file (or describe) that asks. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A maker of fresh temp directories; what it made is removed after all the tests (or after each). */
export function useTempDirs(prefix: string, { after = 'all' }: { after?: 'all' | 'each' } = {}): (prefix?: string) => string {
  const dirs = new TempDirs(prefix)
  ;(after === 'each' ? afterEach : afterAll)(dirs.removeAll)
  return dirs.make
}
