// Loads the TypeScript fixture generator (scripts/onnx-fixture) from plain Node 20,
// which cannot import .ts: esbuild (already installed for tsup) bundles it into a cache
// file next to node_modules, with packages left external so onnx-proto resolves normally.
// The bundles get a folder of their own: node_modules/.cache/vitest-sceptic is the result
// cache's default, which refuses to write beside files it did not write. Their names carry
// the checkout's path, so worktrees sharing one node_modules do not import each other's code.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Import `scripts/onnx-fixture/index.ts` as an ES module. */
export async function loadFixture() {
  return loadTypeScript('scripts/onnx-fixture/index.ts', 'fixture')
}

/** Import a TypeScript module of the repository (path from the root) as an ES module, bundled to `<name>.mjs` in the cache. */
export async function loadTypeScript(entry, name) {
  const outDir = `${root}node_modules/.cache/vitest-sceptic-scripts`
  mkdirSync(outDir, { recursive: true })
  const outfile = `${outDir}/${name}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.mjs`
  await build({
    entryPoints: [`${root}${entry}`],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  })
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`)
}
