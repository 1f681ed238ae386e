// Core computes, renderers format: every renderer lives in src/report, and no module of src/core
// but the entry that re-exports the terminal renderers imports picocolors or src/report, so no
// computing module depends on how its numbers are printed (docs/design.md, "Data flow").
import { readFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { relativeImports, sourceFiles } from './source-files.ts'

const CORE = resolve(import.meta.dirname, '../../src/core')

const isRenderer = (spec: string) => /(^|\/)report\//.test(spec)

/** What a core module imports that belongs to rendering: picocolors or a module of src/report. */
export function renderingImports(source: string): string[] {
  const colour = /\bfrom\s*['"]picocolors['"]/.test(source) ? ['picocolors'] : []
  return [...colour, ...relativeImports(source).filter(isRenderer)]
}

describe('renderers stay out of the computing core', () => {
  it('keeps every renderer in src/report: no render*.ts left in src/core', () => {
    expect(sourceFiles(CORE).map((file) => basename(file)).filter((name) => /^render/.test(name))).toEqual([])
  })

  it('sees a planted renderer import', () => {
    expect(renderingImports(`import pc from 'picocolors'\nimport { colorEnabled } from '../report/terminal.ts'\nimport { own } from './dict.ts'`)).toEqual([
      'picocolors',
      '../report/terminal.ts',
    ])
  })

  it('no module of src/core but its entry imports picocolors or src/report', () => {
    const offenders = sourceFiles(CORE)
      .filter((file) => file !== resolve(CORE, 'index.ts'))
      .flatMap((file) => renderingImports(readFileSync(file, 'utf8')).map((spec) => `${basename(file)} → ${spec}`))
    expect(offenders).toEqual([])
  })
})
