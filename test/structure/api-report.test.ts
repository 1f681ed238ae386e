// The public API is what api/*.api.txt says: each entry's exported names and kinds, read
// from the built declaration files. A change to the surface must show up as a diff there.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { reports } from '../../scripts/api-report.mjs'

const built: { entry: string; file: string; text: string }[] = reports()

describe('public API report', () => {
  it.each(built.map((r) => [r.entry, r] as const))('%s matches its committed report (if the change is meant: npm run api:update)', (_, { file, text }) => {
    expect(existsSync(file), `${file} is missing: run npm run api:update`).toBe(true)
    expect(text, `the built API differs from ${file}; if the change is meant, run npm run api:update and commit the diff`).toBe(readFileSync(file, 'utf8'))
  })

  it('keeps internals out of every entry and gives no name two meanings', () => {
    const names = built.flatMap((r) => r.text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split(' ')[1]!))
    for (const internal of ['argmaxFirst', 'TIE_TOLERANCE', 'divideOut', 'mulberry32', 'canonicalJson', 'escapeData', 'escapeControl', 'lnGamma'])
      expect(names, internal).not.toContain(internal)
    expect(names).not.toContain('BaselineMcNemarResult')
    expect(names).not.toContain('mean')
  })

  it('the published types leave out @internal members', () => {
    const onnx = built.find((r) => r.entry === './onnx')!
    expect(onnx.text).toContain('function onnxScorer')
    const dist = new URL('../../dist/', import.meta.url)
    const declarations = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.d.ts'))
    expect(declarations.length).toBeGreaterThan(0)
    for (const file of declarations) expect(readFileSync(new URL(file, dist), 'utf8'), file).not.toMatch(/\bfaults\?:|readonly pool:/)
  })
})
