// `npm run build`: tsup, failing on any line it prints that is not its own progress (a
// Rollup warning such as "circular dependency between chunks" is a defect, not noise).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
// tsup's own progress lines start with the format they belong to.
const PROGRESS = /^(CLI|ESM|CJS|DTS|IIFE) /

/** Lines of tsup's output that are not its progress: warnings, whatever prints them. */
export function unexpectedLines(output) {
  return output
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !PROGRESS.test(line))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js')
  const { status, stdout, stderr } = spawnSync(process.execPath, [tsup, ...process.argv.slice(2)], { cwd: root, encoding: 'utf8' })
  process.stdout.write(stdout)
  process.stderr.write(stderr)
  if (status !== 0) process.exit(status ?? 1)
  const unexpected = unexpectedLines(stdout + stderr)
  if (unexpected.length > 0) {
    console.error(`build: tsup printed ${unexpected.length} line(s) that are not its progress; the build must be silent:\n${unexpected.join('\n')}`)
    process.exit(1)
  }
}
