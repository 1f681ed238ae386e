// One home for writing and deleting files: src/core/support/files.ts. Every rename, rm, unlink and
// rmdir of node:fs (sync, callback or promises) lives there, so the rule it enforces (an
// existing target that is not a regular file is never renamed over) holds everywhere.
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './source-files.ts'

const SRC = resolve(import.meta.dirname, '../../src')
const HOME = resolve(SRC, 'core/support/files.ts')
const NAMES = ['rename', 'renameSync', 'rm', 'rmSync', 'unlink', 'unlinkSync', 'rmdir', 'rmdirSync']

/** The forbidden fs names a source imports or calls (`import { rmSync } from 'node:fs'`, `fs.unlink(`, `promises.rename(`). */
export function deletions(source: string): string[] {
  const found: string[] = []
  const imports = /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"](?:node:)?fs(?:\/promises)?['"]/g
  for (const match of source.matchAll(imports))
    for (const part of match[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/)[0]!.trim()
      if (NAMES.includes(name)) found.push(name)
    }
  const calls = new RegExp(String.raw`\.(${NAMES.join('|')})\s*\(`, 'g')
  for (const match of source.matchAll(calls)) found.push(`.${match[1]}(`)
  const required = /require\(\s*['"](?:node:)?fs(?:\/promises)?['"]\s*\)\s*\.\s*(\w+)/g
  for (const match of source.matchAll(required)) if (NAMES.includes(match[1]!)) found.push(match[1]!)
  return found
}

describe('one home for writing and deleting files', () => {
  it('sees planted imports and calls', () => {
    expect(deletions(`import { readFileSync, rmSync } from 'node:fs'\nimport { rename as mv, stat } from 'fs/promises'`)).toEqual(['rmSync', 'rename'])
    expect(deletions(`import * as fs from 'node:fs'\nfs.unlinkSync(p)\nawait fsp.rm(dir, { recursive: true })`)).toEqual(['.unlinkSync(', '.rm('])
    expect(deletions(`const x = require('node:fs').rmdirSync`)).toEqual(['rmdirSync'])
    expect(deletions(`import { readFileSync, writeFileSync } from 'node:fs'\nconst s = a.remove(b)`)).toEqual([])
  })

  it('no module of src/ but core/support/files.ts renames or deletes', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => file !== HOME)
      .flatMap((file) => deletions(readFileSync(file, 'utf8')).map((name) => `${relative(SRC, file)}: ${name}`))
    expect(offenders).toEqual([])
  })
})
