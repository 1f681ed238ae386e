// `npm run test:stress -- FILE...`: the project's tests with every fast-check property run many
// more times on fresh seeds (see ./fast-check.ts). Run one file at a time on a shared machine.
import { fileURLToPath } from 'node:url'
import { defineConfig, mergeConfig } from 'vitest/config'
import base from '../../vitest.config.ts'

export default mergeConfig(
  base,
  defineConfig({
    root: fileURLToPath(new URL('../..', import.meta.url)),
    resolve: { alias: [{ find: /^fast-check$/, replacement: fileURLToPath(new URL('./fast-check.ts', import.meta.url)) }] },
    test: { testTimeout: 1_800_000 },
  }),
)
