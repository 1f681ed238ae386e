import { readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { AI_SDK, AI_SDK_FILES, NO_AI_SDK } from './test/helpers/ai-sdk.ts'

// Files that test in-process code only: no environment variables set, no fake timers or spies,
// no module state left behind. They share their worker's module cache (isolate: false) instead
// of importing src/ again for each file: on the 33 light files of test/core that is 30 CPU s
// instead of 70 (measured twice each way).
const SHARED_DIRS = ['test/core', 'test/structure', 'test/run', 'test/helpers', 'test/suite', 'test/vitest/assertions', 'test/vitest/baseline', 'test/vitest/plugin', 'test/vitest/shards', 'test/vitest/suite', 'test/cache', 'test/scorers/http']
// ...but for these, which set environment variables, V8 flags, fake timers or spies.
const ISOLATED_ANYWAY = new Set(['test/cache/stale.test.ts', 'test/cache/marker-race.test.ts', 'test/cache/concurrent-readers.test.ts', 'test/scorers/http/secrets.test.ts', 'test/scorers/http/timeout-gc.test.ts'])
// ...and these files from other folders, checked the same way (none uses vi.mock, whose
// module mocks a shared worker would keep): 52 CPU s isolated, 22 CPU s shared.
const SHARED_FILES = [
  'test/adversarial/gate.test.ts', 'test/adversarial/options.test.ts', 'test/adversarial/options.property.test.ts', 'test/adversarial/verdicts.test.ts',
  'test/adversarial/round3/escaping.test.ts', 'test/adversarial/round4/budgets.test.ts', 'test/adversarial/round4/terminal.test.ts', 'test/adversarial/round3/looks.test.ts', 'test/adversarial/round3/outputs.test.ts', 'test/adversarial/round3/run-json.test.ts', 'test/adversarial/round3/timeout.test.ts',
  'test/cli/build-if-stale.test.ts', 'test/cli/output-flags.test.ts', 'test/docs/facts.test.ts', 'test/docs/links.test.ts', 'test/jest/options.test.ts',
  'test/report/github.test.ts', 'test/report/html.test.ts', 'test/report/robustness-report.test.ts', 'test/report/stop-early.test.ts', 'test/report/suite-tests.test.ts', 'test/report/ties.test.ts', 'test/report/verdict.test.ts',
  'test/scorers/ai/decision-mock.test.ts', 'test/scorers/ai/decision-scorer.test.ts', 'test/scorers/ai/option-keys.test.ts',
  'test/scorers/onnx/fixture.test.ts', 'test/scorers/onnx/stages.test.ts', 'test/scorers/onnx/units.test.ts', 'test/scorers/onnx/model/model-config.test.ts', 'test/scorers/onnx/prompt/tokenizer.test.ts',
  'test/vitest/units.test.ts',
]
const root = fileURLToPath(new URL('.', import.meta.url))
const SHARED = [
  ...SHARED_DIRS.flatMap((dir) => (readdirSync(join(root, dir), { recursive: true }) as string[]).filter((file) => file.endsWith('.test.ts')).map((file) => `${dir}/${file}`)).filter((file) => !ISOLATED_ANYWAY.has(file)),
  ...SHARED_FILES,
]

// Node 20 has no AI SDK: the files that load it are left out, and the run says so once.
const NOT_HERE = AI_SDK ? [] : AI_SDK_FILES
if (!AI_SDK) console.log(`vitest.config.ts: ${NOT_HERE.length} test paths left out (${NOT_HERE.join(', ')}): ${NO_AI_SDK}; CI runs them on Node 22 and 24`)

// The project's own tests. The example eval project has its own config in examples/.
export default defineConfig({
  test: {
    // End-to-end tests spawn `vitest run` and the CLI on fixture projects.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // At least two files at a time. Vitest's default is one worker fewer than the CPUs, so on
    // CI's two cores every file ran in turn, while most of them wait on the processes they spawn.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The score cache is on by default for users; the suite's runs (and the CLIs and
    // Vitest runs they spawn, which inherit this) leave it off unless a test turns it
    // on with its own directory, so no test depends on what another one cached.
    // ORT's telemetry off for what the tests load themselves (transformers.js, raw sessions);
    // the tests of the scorer's own switch remove it from the processes they spawn.
    env: { SCEPTIC_CACHE_MODE: 'off', ORT_DISABLE_TELEMETRY: '1' },
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED, exclude: [...configDefaults.exclude, ...NOT_HERE], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SHARED, ...NOT_HERE] } },
    ],
  },
})
