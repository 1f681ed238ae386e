// `npm test` builds dist/ only when it is stale: CI's first leg has just built it in
// `npm run eval`, and a second build costs a minute of two cores. Either way the build is
// scripts/build.mjs, which fails on any line tsup prints that is not its progress.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

it('npm test and npm run eval build through build-if-stale, which runs scripts/build.mjs', () => {
  const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  expect(pkg.scripts.test).toBe('node scripts/build-if-stale.mjs && node scripts/typecheck.mjs && vitest run')
  expect(pkg.scripts.eval).toMatch(/^node scripts\/build-if-stale\.mjs && /)
  const stale = readFileSync(resolve(ROOT, 'scripts/build-if-stale.mjs'), 'utf8')
  expect(stale).toMatch(/spawnSync\(process\.execPath, \[join\(root, 'scripts', 'build\.mjs'\)/)
})
