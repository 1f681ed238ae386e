import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'tsup'

// Node 20 has no AI SDK (ai@7 requires Node >= 22; scripts/ai-sdk/package.json): the declarations
// then resolve `ai` to loose stand-ins, and still name its types, as they do with the real ones.
const aiTypes = existsSync('node_modules/ai/package.json') ? {} : { paths: { ai: [fileURLToPath(new URL('scripts/ai-sdk/ai.d.ts', import.meta.url))] } }

// Every public entry point and every file Node must load by path (worker threads,
// the plugin's setup file). Entries whose source does not exist yet are skipped, so
// the list can name the whole package layout.
const entries: Record<string, string> = {
  index: 'src/index.ts',
  'core/index': 'src/core/index.ts',
  'stats/index': 'src/core/stats.ts',
  'cache/index': 'src/cache/index.ts',
  'cli/main': 'src/cli/main.ts',
  'onnx/index': 'src/scorers/onnx/index.ts',
  'onnx/worker': 'src/scorers/onnx/runtime/worker.ts',
  'onnx/template-child': 'src/scorers/prompt/template-child.ts',
  'onnx/pool-server': 'src/scorers/onnx/runtime/pool-server.ts',
  'gguf/index': 'src/scorers/gguf/index.ts',
  'http/index': 'src/scorers/http/index.ts',
  'ai/index': 'src/scorers/ai/index.ts',
  'report/index': 'src/report/index.ts',
  'vitest/reporter': 'src/vitest/reporter/reporter.ts',
  'vitest/plugin': 'src/vitest/plugin/plugin.ts',
  'vitest/setup': 'src/vitest/setup.ts',
  'vitest/models-setup': 'src/vitest/plugin/models-setup.ts',
  'jest/index': 'src/jest/index.ts',
  'jest/reporter': 'src/jest/reporter.ts',
}

// The Jest face also as CommonJS, behind the `require` condition: Jest's default mode
// require()s it, and Node before 24.9 cannot require() an ES module from Jest's runtime.
const jestEntries = Object.fromEntries(Object.entries(entries).filter(([name]) => name.startsWith('jest/')))

const shared = {
  target: 'node20',
  platform: 'node' as const,
  sourcemap: true,
  // Vitest parses hook sources (`async ({}, suite) =>`), so never minify.
  minify: false,
  external: ['vitest', 'vite', 'onnxruntime-node', 'ai', 'node-llama-cpp'],
}

export default defineConfig([
  // ESM only: `vitest` has no usable CommonJS entry, so a CJS build of the Vitest
  // layer would throw on require(). CommonJS consumers (a `vitest.config.ts` in a
  // project without `"type": "module"`, which Vite bundles to CommonJS) still load it:
  // package.json exports each entry under `default`, and Node ≥ 20.19 require()s ESM.
  {
    ...shared,
    entry: Object.fromEntries(Object.entries(entries).filter(([, source]) => existsSync(source))),
    format: ['esm'],
    // `@internal` members (test hooks such as the ONNX scorer's `faults` and `pool`) stay out of the published types.
    dts: { compilerOptions: { stripInternal: true, ...aiTypes } },
    clean: true,
    splitting: true,
  },
  // The Jest entries again as whole CommonJS files (`.cjs`, behind `require`). Types come from
  // the ESM build; the clean is the first build's.
  {
    ...shared,
    entry: jestEntries,
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    dts: false,
    clean: false,
    splitting: false,
  },
])
