// The Jest face stays thin: it decides nothing itself. Everything it decides or names comes
// through one adapter (src/jest/decide.ts) from the suite layer (src/suite/) both faces use, and its
// bundles never load `vitest` (Jest projects need not install it).
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './source-files.ts'

const root = resolve(import.meta.dirname, '../..')
const face = join(root, 'src/jest')
const ADAPTER = join(face, 'decide.ts')

/** `import`/`export … from` statements: the specifier, and whether the whole statement is type-only. */
function imports(source: string): { spec: string; typeOnly: boolean }[] {
  const found: { spec: string; typeOnly: boolean }[] = []
  for (const match of source.matchAll(/^(import|export)\s+(type\s+)?[^;'"]*?\bfrom\s+['"]([^'"]+)['"]/gms)) found.push({ spec: match[3]!, typeOnly: match[2] !== undefined })
  return found
}

describe('the Jest face', () => {
  it('reaches rules only through its adapter: other files import the face itself, types, and file helpers', () => {
    const strays: string[] = []
    for (const file of sourceFiles(face)) {
      if (file === ADAPTER) continue
      for (const { spec, typeOnly } of imports(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) {
          if (!spec.startsWith('node:')) strays.push(`${relative(root, file)} imports package ${spec}`)
          continue
        }
        const target = resolve(dirname(file), spec)
        const inside = target.startsWith(face + '/')
        const support = target.startsWith(join(root, 'src/core/support') + '/')
        if (!inside && !support && !typeOnly) strays.push(`${relative(root, file)} imports ${spec}`)
      }
    }
    expect(strays).toEqual([])
  })

  it('has no threshold comparison of its own: no file but the adapter names a threshold rule', () => {
    for (const file of sourceFiles(face))
      if (file !== ADAPTER) expect(readFileSync(file, 'utf8'), relative(root, file)).not.toMatch(/\b(evaluateThreshold|thresholdVerdict|meetsLowerBound|failureRateProblem|decideBaseline|runBaselineGate|compareWithBaseline)\b/)
  })

  it('its bundles (CommonJS and ESM, with the chunks they load) never reference vitest', () => {
    const dist = join(root, 'dist')
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = readFileSync(file, 'utf8')
      expect(text, relative(root, file)).not.toMatch(/(?:from\s*|require\(\s*|import\(\s*)["']vitest(?:\/[^"']*)?["']/)
      for (const [, spec] of text.matchAll(/(?:from\s*|import\s*\(\s*|require\(\s*|^import\s*)["'](\.{1,2}\/[^"']+)["']/gm)) visit(resolve(dirname(file), spec!))
    }
    for (const entry of ['jest/index.js', 'jest/reporter.js', 'jest/index.cjs', 'jest/reporter.cjs']) {
      expect(existsSync(join(dist, entry)), `dist/${entry}: build first`).toBe(true)
      visit(join(dist, entry))
    }
    // The ESM entries load shared chunks; the CommonJS ones are whole.
    expect(seen.size).toBeGreaterThan(4)
  })

  it('the package exports the CommonJS build under `require`, the ESM one under `import`', () => {
    const exports = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports
    for (const entry of ['./jest', './jest/reporter']) {
      expect(exports[entry].require).toMatch(/\.cjs$/)
      expect(exports[entry].import).toMatch(/\.js$/)
    }
  })
})
