// The example eval project: `npm run eval` runs it (`vitest run --config examples/vitest.config.ts`).
// The plugin sets the include (evals/**/*.eval.ts), registers the matchers, adds the
// sceptic reporter after Vitest's own output and keeps one baseline per suite.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { sceptic } from 'vitest-sceptic/plugin'

// ai@7 requires Node ≥ 22, and npm installs it only there (scripts/ai-sdk/package.json): on Node 20
// the decision-model example is left out, and the run says so.
const aiSdk = existsSync(fileURLToPath(new URL('../node_modules/ai/package.json', import.meta.url)))
if (!aiSdk) console.log(`examples/vitest.config.ts: evals/decision-model.eval.ts left out: the AI SDK (ai@7) needs Node ≥ 22; this is Node ${process.versions.node}`)

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
  ...(aiSdk ? {} : { test: { exclude: [...configDefaults.exclude, 'evals/decision-model.eval.ts'] } }),
})
