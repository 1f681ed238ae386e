// The example eval project: `npm run eval` runs it (`vitest run --config examples/vitest.config.ts`).
// The plugin sets the include (evals/**/*.eval.ts), registers the matchers, adds the
// sceptic reporter after Vitest's own output and keeps one baseline per suite.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { sceptic } from 'vitest-sceptic/plugin'

export default defineConfig({
  // Relative paths (data files, the baseline dir) resolve against this directory.
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    sceptic({
      baseline: 'evals/__baselines__',
      // Loaded once, in this process, and shared by every eval file that uses sharedModel(name).
      // reader and biased are written from models/weights by scripts/make-trained-models.mjs.
      models: { tiny: 'models/tiny', reader: 'models/reader', biased: 'models/biased' },
    }),
  ],
})
