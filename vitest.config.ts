import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// The project's own tests. The example eval project has its own config in examples/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
})
