// `npm run eval` builds only when dist/ is missing a file or older than a source file.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect, test } from 'vitest'
import { staleReason } from '../../scripts/build-if-stale.mjs'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-stale-')

const write = (file: string, seconds: number) => {
  const path = join(dir, file)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, '')
  utimesSync(path, seconds, seconds)
}
const OUTPUTS = ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/vitest/plugin.js', 'dist/vitest/reporter.js']

test('missing outputs, then fresh, then a newer source or config file', () => {
  write('src/core/a.ts', 1000)
  write('package.json', 1000)
  expect(staleReason(dir)).toBe('dist/index.js is missing')
  for (const file of OUTPUTS.slice(0, 3)) write(file, 2000)
  expect(staleReason(dir)).toBe('dist/vitest/plugin.js is missing')
  for (const file of OUTPUTS) write(file, 2000)
  expect(staleReason(dir)).toBeNull()
  write('src/core/deep/b.ts', 3000)
  expect(staleReason(dir)).toBe('a source file is newer than dist/')
  write('src/core/deep/b.ts', 1500)
  write('tsup.config.ts', 2500)
  expect(staleReason(dir)).toBe('a source file is newer than dist/')
  write('tsup.config.ts', 1500)
  // One output older than a source (a build that stopped part-way) is stale too.
  write('dist/chunk.js', 1200)
  expect(staleReason(dir)).toBe('a source file is newer than dist/')
})
