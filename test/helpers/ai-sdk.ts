// ai@7 and @ai-sdk/* require Node ≥ 22: npm installs them there and skips them, without a
// warning, on Node 20 (scripts/ai-sdk/package.json), where what loads them is not run.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Whether the AI SDK is installed in this checkout. */
export const AI_SDK = existsSync(fileURLToPath(new URL('../../node_modules/ai/package.json', import.meta.url)))

/** Why a test of the AI SDK is not run here. */
export const NO_AI_SDK = `the AI SDK (ai@7) needs Node ≥ 22; npm did not install it on Node ${process.versions.node}`

/** The test files that load the AI SDK: on Node 20 they are left out of the run, and CI runs them on Node 22 and 24. */
export const AI_SDK_FILES = [
  'test/scorers/ai/**',
  'test/adversarial/round3/decide.test.ts',
  'test/adversarial/round3/cache-keys.test.ts',
  'test/adversarial/round3/shard-counters.test.ts',
  'test/vitest/decision-shards.e2e.test.ts',
]
