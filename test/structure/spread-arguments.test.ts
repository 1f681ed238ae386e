// No spread argument in a call anywhere in src/: `Math.max(...a)`, `push(...a)` and the like
// pass one argument per element, and V8 throws "Maximum call stack size exceeded" at about
// 125,000 of them, so a run that large died after all its scoring. Loops in
// src/core/support/spreadless.ts do the same work for any count. Spreads into array literals are
// fine (no call frame holds them). The allow-list holds only argument lists forwarded as
// they came (a caller's own arguments, never data).
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './source-files.ts'

const SRC = resolve(import.meta.dirname, '../../src')

/** `file: spread text` of spreads allowed in a call, each a rest parameter passed on. */
const ALLOWED = new Set(['cache/cached-scorer.ts: ...rest', 'cache/check-hits.ts: ...rest'])

/** Every spread argument of a call or `new` in `source`, as `line: text`. */
export function spreadArguments(source: string, name = 'source.ts'): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isSpreadElement(node) && (ts.isCallExpression(node.parent) || ts.isNewExpression(node.parent)))
      found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`)
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

describe('no spread arguments in src/', () => {
  it('sees planted spreads into calls, and not into array or object literals', () => {
    const planted = 'const a = [1]\nMath.max(...a)\nout.push(0, ...a.map(String))\nnew Set(...[a])\nconst b = [...a]\nconst o = { ...a }\nfunction f(...rest) {}'
    expect(spreadArguments(planted)).toEqual(['2: ...a', '3: ...a.map(String)', '4: ...[a]'])
  })

  it('no module calls with a spread argument but the forwarded rest parameters allowed', () => {
    const offenders = sourceFiles(SRC).flatMap((path) => {
      const name = relative(SRC, path).replaceAll('\\', '/')
      return spreadArguments(readFileSync(path, 'utf8'), name)
        .map((hit) => ({ key: `${name}: ${hit.replace(/^\d+: /, '')}`, at: `${name}:${hit}` }))
        .filter((hit) => !ALLOWED.has(hit.key))
        .map((hit) => hit.at)
    })
    expect(offenders).toEqual([])
  })
})
