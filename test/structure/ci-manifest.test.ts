// The second CI leg (Node 22 + Vitest 5) installs from ci/vitest5/package.json: the root
// manifest with a few pinned overrides. A root package.json change not synced there stops
// that leg before any test runs; here it fails `npm test` instead, naming the fix.
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

it('ci/vitest5/package.json is the root manifest with its overrides (node ci/vitest5/sync.mjs --check)', () => {
  const check = spawnSync(process.execPath, ['ci/vitest5/sync.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' })
  expect(check.status, check.stderr).toBe(0)
})
