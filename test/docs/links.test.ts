// Every link between the repository's pages lands: a relative Markdown link in README.md or
// docs/ names a file that exists and, with `#anchor`, a heading of that page; so does every
// `docs/<page>.md#<anchor>` a source, test or script comment names.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
}

/** The anchors of a Markdown page's headings (outside code fences), GitHub-style, with -1, -2 for repeats. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>()
  let fence = false
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence
    if (fence || !/^#{1,6} /.test(line)) continue
    const base = anchorOf(line.replace(/^#+ /, ''))
    let anchor = base
    for (let n = 1; found.has(anchor); n++) anchor = `${base}-${n}`
    found.add(anchor)
  }
  return found
}

/** Relative links `[text](target)` of a Markdown page, outside code fences and inline code. */
export function links(markdown: string): string[] {
  let fence = false
  const found: string[] = []
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence
    if (fence) continue
    for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/i.test(target!)) found.push(target!)
  }
  return found
}

/** Why `target`, linked from the page `from` (repository-relative), does not land; undefined when it does. */
function broken(from: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined]
  const file = path === '' ? join(ROOT, from) : resolve(dirname(join(ROOT, from)), path)
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`
  if (anchor === undefined || !file.endsWith('.md')) return undefined
  return anchors(readFileSync(file, 'utf8')).has(anchor) ? undefined : `${relative(ROOT, file)} has no heading #${anchor}`
}

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

function codeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return ['node_modules', 'dist', 'fixtures', 'models'].includes(entry.name) ? [] : codeFiles(path)
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : []
  })
}

describe('links between pages', () => {
  it('finds a planted broken link and spares a good one', () => {
    expect(links('see [a](a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](https://example.com)')).toEqual(['a.md#x'])
    expect([...anchors('# T\n## Options\n## Options\n```\n# not\n```')]).toEqual(['t', 'options', 'options-1'])
    expect(broken('docs/README.md', 'vitest.md#no-such-heading')).toMatch(/has no heading/)
    expect(broken('docs/README.md', 'no-such-page.md')).toMatch(/does not exist/)
    expect(broken('docs/README.md', 'vitest.md')).toBeUndefined()
  })

  it('every relative link in README.md and docs/ lands on a file and heading that exist', () => {
    const bad = pages.flatMap((page) => links(readFileSync(join(ROOT, page), 'utf8')).flatMap((target) => {
      const why = broken(page, target)
      return why ? [`${page} → ${target}: ${why}`] : []
    }))
    expect(bad).toEqual([])
  })

  it('every docs/<page>.md#<anchor> named in code lands', () => {
    const bad = ['src', 'test', 'scripts', 'bench', 'examples'].flatMap(codeFiles).flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g)].flatMap(([, page, anchor]) => {
        const why = broken('docs/README.md', anchor ? `${page}#${anchor}` : page!)
        return why ? [`${file} → docs/${page}${anchor ? `#${anchor}` : ''}: ${why}`] : []
      }),
    )
    expect(bad).toEqual([])
  })
})
