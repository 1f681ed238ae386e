// The module graph of src/ has no cycles, type-only imports included: a cycle means two
// modules each hold part of one concept (see docs/design.md, "Data flow"), and it makes the
// load order of the built entries depend on which one a user imports first.
import { readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { relativeImports, sourceFiles } from './source-files.ts'

const SRC = resolve(import.meta.dirname, '../../src')

/** The import graph of `files`, as absolute paths. */
function graph(files: string[]): Map<string, string[]> {
  const known = new Set(files)
  const edges = new Map<string, string[]>()
  for (const file of files) {
    const targets = relativeImports(readFileSync(file, 'utf8'))
      .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      .filter((target) => known.has(target))
    edges.set(file, targets)
  }
  return edges
}

/** Each cycle once, as a list of files (Tarjan's strongly connected components of size > 1). */
export function cycles(edges: Map<string, string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const visit = (node: string): void => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) components.push(component.sort())
    }
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return components
}

describe('import cycles', () => {
  it('finds a planted cycle, type-only and dynamic imports included', () => {
    expect(relativeImports(`import type { A } from './a.ts'\nexport { b } from "../b.ts"\nconst c = await import('./c.ts')\nimport './d.ts'`))
      .toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts'])
    const planted = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])
    expect(cycles(planted)).toEqual([['a', 'b', 'c']])
  })

  it('src/ has none', () => {
    const found = cycles(graph(sourceFiles(SRC))).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' ↔ '))
    expect(found).toEqual([])
  })
})
