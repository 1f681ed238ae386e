// Build dist/ (scripts/build.mjs: tsup, failing on any stray line) unless it is already newer
// than every source file, so a second `npm run eval`, or `npm test` after it, costs no build.
// `npm run build` always builds.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const SOURCES = ['src', 'tsup.config.ts', 'tsconfig.json', 'package.json']
// Files a complete build has: the JS entries and the declarations, written last.
const OUTPUTS = ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/vitest/plugin.js', 'dist/vitest/reporter.js']

/** Every file under `path` (or `path` itself), with its mtime. */
function* files(path) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (!stat) return
  if (!stat.isDirectory()) yield stat.mtimeMs
  else for (const entry of readdirSync(path)) yield* files(join(path, entry))
}

/** Why a build is needed, or null when dist/ is up to date. */
export function staleReason(dir = root) {
  const missing = OUTPUTS.find((file) => !existsSync(join(dir, file)))
  if (missing) return `${missing} is missing`
  const newestSource = Math.max(...SOURCES.flatMap((path) => [...files(join(dir, path))]))
  const oldestOutput = Math.min(...files(join(dir, 'dist')))
  return newestSource >= oldestOutput ? 'a source file is newer than dist/' : null
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reason = staleReason()
  if (reason === null) {
    console.log('dist/ is newer than src/: build skipped')
  } else {
    console.log(`building dist/ (${reason})`)
    const { status } = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--silent'], { cwd: root, stdio: 'inherit' })
    process.exit(status ?? 1)
  }
}
