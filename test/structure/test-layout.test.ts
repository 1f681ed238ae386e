// test/ mirrors src/: a folder of tests has the path of the src/ folder it tests, and a file
// that runs fixture projects on a copy of the built package is a scenario test (*.e2e.test.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
/** Top-level test folders with no src/ counterpart: cross-cutting suites, data and helpers. */
const OWN = new Set(['adversarial', 'data', 'docs', 'fixtures', 'helpers', 'stress', 'structure'])

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [join(dir, entry.name), ...folders(join(dir, entry.name))])
}

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true
const testDirs = folders(join(root, 'test')).filter((dir) => !OWN.has(relative(join(root, 'test'), dir).split('/')[0]!))
const testFiles = folders(join(root, 'test'))
  .concat(join(root, 'test'))
  .filter((dir) => !relative(root, dir).startsWith('test/fixtures'))
  .flatMap((dir) => readdirSync(dir).filter((name) => name.endsWith('.test.ts')).map((name) => join(dir, name)))
  .filter((file) => file !== import.meta.filename)

describe('the test tree', () => {
  it('every test folder outside the cross-cutting ones is a folder of src/', () => {
    expect(testDirs.length).toBeGreaterThan(10)
    const strays = testDirs.map((dir) => relative(join(root, 'test'), dir)).filter((rel) => !isDir(join(root, 'src', rel)))
    expect(strays).toEqual([])
  })

  it('a test file that takes a dist/ snapshot for fixture runs is named *.e2e.test.ts', () => {
    const scenarios = testFiles.filter((file) => readFileSync(file, 'utf8').includes('useDistSnapshot('))
    expect(scenarios.length).toBeGreaterThan(10)
    expect(scenarios.filter((file) => !file.endsWith('.e2e.test.ts')).map((file) => relative(root, file))).toEqual([])
  })
})
