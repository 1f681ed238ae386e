// Reading src/ as text for the structure checks: its .ts files and their relative imports.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** Every .ts file below `dir`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Relative module specifiers of `import … from`, `export … from` and `import('…')`. */
export function relativeImports(source: string): string[] {
  const found: string[] = []
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm
  for (const match of source.matchAll(pattern)) found.push(match[1]!)
  return found
}

