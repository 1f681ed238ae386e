// Two runners, one suite layer: src/vitest/ and src/jest/ are faces over src/suite/ and never
// import each other; the suite layer loads no runner; every public list is curated (no
// `export *`), so a face's surface changes only by an edit to its list.
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { relativeImports, sourceFiles } from './source-files.ts'

const root = resolve(import.meta.dirname, '../..')
const src = join(root, 'src')
const FACES = ['vitest', 'jest']

/** Package specifiers a file loads: static and type-only imports, re-exports, `import()` and `require()`. */
export function packageImports(source: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+|\bdeclare\s+module\s+)['"]([^'"./][^'"]*)['"]/gm
  return [...source.matchAll(pattern)].map((match) => match[1]!)
}

/** Whether a package specifier is a test runner or a runner's own package. */
export function isRunner(spec: string): boolean {
  return /^(?:vitest|vite|jest|@vitest|@jest|jest-[a-z-]+)(?:\/|$)/.test(spec)
}

/** `export * from` / `export * as` statements. */
export function starExports(source: string): string[] {
  return [...source.matchAll(/^\s*export\s+(?:type\s+)?\*[^\n]*/gm)].map((match) => match[0].trim())
}

describe('the faces', () => {
  it.each(FACES.flatMap((from) => FACES.filter((to) => to !== from).map((to) => [from, to] as const)))('src/%s imports nothing from src/%s', (from, to) => {
    const strays = sourceFiles(join(src, from)).flatMap((file) =>
      relativeImports(readFileSync(file, 'utf8'))
        .filter((spec) => resolve(dirname(file), spec).startsWith(join(src, to) + '/'))
        .map((spec) => `${relative(root, file)} → ${spec}`),
    )
    expect(strays).toEqual([])
  })

  it('src/suite loads no test runner: no vitest, vite, jest, @vitest/* or @jest/*, not even a type', () => {
    const files = sourceFiles(join(src, 'suite'))
    expect(files.length).toBeGreaterThan(10)
    const strays = files.flatMap((file) => packageImports(readFileSync(file, 'utf8')).filter(isRunner).map((spec) => `${relative(root, file)} imports ${spec}`))
    expect(strays).toEqual([])
  })

  it('no file of src/ re-exports with `export *`', () => {
    const strays = sourceFiles(src).flatMap((file) => starExports(readFileSync(file, 'utf8')).map((line) => `${relative(root, file)}: ${line}`))
    expect(strays).toEqual([])
  })

  it('the checks themselves catch what they forbid', () => {
    expect(packageImports("import type {} from 'vitest'\nimport { x } from '@jest/globals'\nconst j = require('jest-snapshot')\nconst v = await import('vitest/node')\ndeclare module 'vitest' {}").filter(isRunner)).toEqual(['vitest', '@jest/globals', 'jest-snapshot', 'vitest/node', 'vitest'])
    expect(packageImports("import { z } from 'zod'\nimport pc from 'picocolors'\nimport { x } from '../core/index.ts'").filter(isRunner)).toEqual([])
    expect(isRunner('vitest-sceptic')).toBe(false)
    expect(starExports("export * from './a.ts'\nexport type * from './b.ts'\nexport * as c from './c.ts'\nexport { d } from './d.ts'")).toHaveLength(3)
  })
})
