// Core computes, renderers format: in src/core only the terminal renderers (render*.ts) and the
// entry that re-exports them may import picocolors or a renderer, so no computing module
// depends on how its numbers are printed (docs/design.md, "Data flow").
import { readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { relativeImports, sourceFiles } from './source-files.ts'

const CORE = resolve(import.meta.dirname, '../../src/core')

const isRenderer = (spec: string) => /(^|\/)render[^/]*\.ts$/.test(spec)

/** What a core module imports that belongs to rendering: picocolors or a render*.ts module. */
export function renderingImports(source: string): string[] {
  const colour = /\bfrom\s*['"]picocolors['"]/.test(source) ? ['picocolors'] : []
  return [...colour, ...relativeImports(source).filter(isRenderer)]
}

describe('renderers stay out of the computing core', () => {
  it('sees a planted renderer import', () => {
    expect(renderingImports(`import pc from 'picocolors'\nimport { colorEnabled } from './render.ts'\nimport { own } from './dict.ts'`)).toEqual([
      'picocolors',
      './render.ts',
    ])
  })

  it('no computing module of src/core imports picocolors or a renderer', () => {
    const offenders = sourceFiles(CORE)
      .filter((file) => !basename(file).startsWith('render') && basename(file) !== 'index.ts')
      .flatMap((file) => renderingImports(readFileSync(file, 'utf8')).map((spec) => `${basename(file)} → ${spec}`))
    expect(offenders).toEqual([])
  })
})
