import { defineConfig } from 'vitest/config'

// The project's own tests. The example eval project has its own config in examples/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn `vitest run` and the CLI on fixture projects.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
})
