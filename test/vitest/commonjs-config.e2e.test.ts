// End-to-end: a CommonJS project (npm 11's `npm init -y` writes "type": "commonjs") with the
// config docs/vitest.md shows, `vitest.config.mts`, runs without Vite's warning; the same config
// named `vitest.config.ts` gets "ESM syntax in a file loaded as CommonJS" on every run, which is
// why the docs name it .mts.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { FIXTURES, installBuilt, REPO, useDistSnapshot, vitestStreams } from '../helpers/vitest.ts'

const dist = useDistSnapshot()
let project = ''
const CONFIG = "import { defineConfig } from 'vitest/config'\nimport { sceptic } from 'vitest-sceptic/plugin'\n\nexport default defineConfig({ plugins: [sceptic()] })\n"

beforeAll(() => {
  project = join(REPO, 'node_modules', '.cache', `vitest-sceptic-cjs-config-${process.pid}`)
  rmSync(project, { recursive: true, force: true })
  cpSync(join(FIXTURES, 'commonjs'), project, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ ...manifest, type: 'commonjs' }))
  writeFileSync(join(project, 'vitest.config.mts'), CONFIG)
  writeFileSync(join(project, 'vitest.config.esm.ts'), CONFIG)
  installBuilt(project, dist())
})
afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true })
})

test.each([
  ['vitest.config.mts', false],
  ['vitest.config.esm.ts', true],
])('"type": "commonjs" with %s: Vite warns about ESM syntax: %s', async (config, warns) => {
  const { code, stdout, stderr } = await vitestStreams(['run', '--root', project, '--config', join(project, config)])
  expect(code, stdout + stderr).toBe(0)
  expect(stdout).toMatch(/Test Files +2 passed/)
  expect(/ESM syntax in a file loaded as CommonJS/.test(stdout + stderr)).toBe(warns)
}, 180_000)
