#!/usr/bin/env node
// tsc --noEmit. Where npm did not install the AI SDK (ai@7 requires Node >= 22; see
// scripts/ai-sdk/package.json), the project is checked with `ai` untyped and the run says so.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const aiSdk = existsSync(`${root}node_modules/ai/package.json`)
if (!aiSdk) console.log(`typecheck: the AI SDK is not installed (ai@7 requires Node >= 22; this is Node ${process.versions.node}): checked with \`ai\` untyped`)
const args = aiSdk ? ['--noEmit'] : ['--noEmit', '-p', 'scripts/ai-sdk/tsconfig.json']
const { status, signal } = spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: 'inherit' })
process.exit(status ?? (signal ? 1 : 0))
