// The repository explains itself: no comment or doc points to a document outside it (design
// notes, research notes, issue numbers), every docs/ link in a comment names a page and heading
// that exist, and every source file opens with a comment saying what it is for.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const SELF = relative(ROOT, import.meta.filename)

/** Text files below `dir` (repository-relative), skipping generated and vendored folders. */
function files(dir: string, extensions: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return ['node_modules', 'dist', 'fixtures', 'models'].includes(entry.name) ? [] : files(path, extensions)
    return extensions.test(entry.name) ? [path] : []
  })
}

/** References to documents a reader of the repository cannot open. */
export const OUTSIDE = /DESIGN\.md|research notes|literature notes|literature §|literature\.md|\bissue \d|"Must hold"|Must hold \d/

/** GitHub's anchor of a Markdown heading. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-')
}

const TEXT = /\.(ts|mjs|js|md)$/
const scanned = [...['src', 'test', 'bench', 'scripts', 'examples', 'docs'].flatMap((d) => files(d, TEXT)), 'README.md'].filter((f) => f !== SELF)

describe('pointers stay inside the repository', () => {
  it('the pattern catches the old kinds of pointer and spares ordinary prose', () => {
    for (const bad of ['(DESIGN.md "Prompt")', '(research notes §6)', '(literature notes §4.5 step 1)', '(issue 3, "Must hold" 5)', 'literature §1.6'])
      expect(bad).toMatch(OUTSIDE)
    for (const fine of ['Must hold no secrets.', '(Miller 2024 §4)', 'docs/design.md#contracts']) expect(fine).not.toMatch(OUTSIDE)
    expect(anchorOf('`describeDecisions(name, options, fn?)`')).toBe('describedecisionsname-options-fn')
    expect(anchorOf('Data flow (one direction)')).toBe('data-flow-one-direction')
  })

  it('no file points outside the repository', () => {
    const found = scanned.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(found).toEqual([])
  })

  it('every docs/<page>.md#<anchor> named in src/ is a heading of that page', () => {
    const broken: string[] = []
    for (const file of files('src', /\.ts$/))
      for (const [, page, anchor] of readFileSync(join(ROOT, file), 'utf8').matchAll(/docs\/([\w-]+\.md)#([\w-]+)/g)) {
        const headings = readFileSync(join(ROOT, 'docs', page!), 'utf8').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchorOf(l.replace(/^#+ /, '')))
        if (!headings.includes(anchor!)) broken.push(`${file}: docs/${page}#${anchor}`)
      }
    expect(broken).toEqual([])
  })

  it('every source file opens with a comment saying what it is for', () => {
    const bare = files('src', /\.ts$/).filter((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/^#!.*\n/, '')
      return !/^(\/\*\*|\/\*|\/\/)/.test(text)
    })
    expect(bare).toEqual([])
  })
})
