import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isLabelled, loadDecisions } from '../../core/decisions.ts'
import { ConfigError, DataError } from '../../core/errors.ts'
import { evaluateWithScorer } from '../../core/evaluate.ts'
import { assertDebiasMode, DEBIAS_MODES, DEFAULT_DEBIAS, type AverageMode } from '../../core/orderings.ts'
import { resolveReducer, type ReducerLike } from '../../core/reducers.ts'
import { colorEnabled, render } from '../../core/render.ts'
import { recordsToJsonl, resultToJson } from '../../core/result.ts'
import type { ScoreFn } from '../../core/score.ts'
import { integer, parse, type OptionTable } from '../args.ts'
import { UsageError, type Command } from '../commands.ts'

const USAGE =
  'evaluate DATA (--model DIR | --scorer MODULE) [--debias MODE] [--batch-size N] [--workers N] [--seed N] [--average probability|log] [--epochs N] [--reducer NAME] [--store-prompts] [--json-out FILE] [--records-out FILE]'

/** A scorer the CLI loaded, with what to call when done. */
interface LoadedScorer {
  score: ScoreFn
  description: string
  manifest: Record<string, unknown>
  close?: () => unknown
}

/** Every option of `sceptic evaluate`: read by the parser, `--help` and "did you mean". */
const OPTIONS = {
  model: { type: 'string', value: 'DIR', description: 'score with a local ONNX model directory (needs onnxruntime-node)' },
  scorer: { type: 'string', value: 'MODULE', description: 'score with a JS module whose default export is a ScoreFn' },
  debias: { type: 'string', value: 'MODE', default: DEFAULT_DEBIAS, description: `option orderings: ${DEBIAS_MODES.join(', ')}; none cannot measure order consistency` },
  'batch-size': { type: 'string', value: 'N', description: 'prompts per ONNX run (--model)' },
  workers: { type: 'string', value: 'N', description: 'ONNX worker threads (--model)' },
  seed: { type: 'string', value: 'N', default: '0', description: 'seed for sampled orderings and the PriDe sample' },
  average: { type: 'string', value: 'MODE', default: 'probability', description: 'combine orderings by probability or log mean: probability, log' },
  epochs: { type: 'string', value: 'N', default: '1', description: 'score every decision N times (for sampling scorers)' },
  reducer: { type: 'string', value: 'NAME', default: 'mean', description: 'combine epochs: mean, median, mode, max' },
  'store-prompts': { type: 'boolean', description: 'keep each prompt in the records' },
  'json-out': { type: 'string', value: 'FILE', description: 'write the result as JSON' },
  'records-out': { type: 'string', value: 'FILE', description: 'write one record per decision as JSONL' },
} satisfies OptionTable

export const evaluateCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  summary: 'Score a JSONL decision file and print the sceptic report.',
  async run(argv) {
    const { values: raw, positionals } = parse(argv, OPTIONS, USAGE)
    const values = raw as Record<string, string | undefined>
    if (positionals.length !== 1) throw new UsageError(`evaluate takes one DATA file. Usage: sceptic ${USAGE}`)
    if ((values.model === undefined) === (values.scorer === undefined))
      throw new UsageError(`give exactly one of --model DIR or --scorer MODULE. Usage: sceptic ${USAGE}`)
    const debias = values.debias
    assertDebiasMode(debias)
    const seed = integer(values.seed, 'seed') ?? 0
    const batchSize = integer(values['batch-size'], 'batch-size', 1)
    const workers = integer(values.workers, 'workers', 1)
    const epochs = integer(values.epochs, 'epochs', 1) ?? 1
    const reducer = resolveReducer((values.reducer ?? 'mean') as ReducerLike)

    const decisions = await loadDecisions(positionals[0]!)
    if (!decisions.some(isLabelled))
      throw new DataError(`none of the ${decisions.length} decisions has an answer_id, so there is nothing to score against`, {
        file: positionals[0]!,
      })
    const scorer =
      values.model !== undefined
        ? await loadModel(values.model, { batchSize, workers })
        : await loadScorerModule(values.scorer!)
    try {
      const result = await evaluateWithScorer(decisions, scorer.score, {
        debias,
        seed,
        scorer: scorer.description,
        manifest: scorer.manifest,
        epochs,
        reducer,
        ...(values.average !== undefined ? { average: values.average as AverageMode } : {}),
        storePrompts: raw['store-prompts'] === true,
        onWarning: (message) => process.stderr.write(`${message}\n`),
      })
      process.stdout.write(render(result, { color: colorEnabled(process.stdout) }) + '\n')
      if (values['json-out']) await writeFile(values['json-out'], JSON.stringify(resultToJson(result), null, 2) + '\n')
      if (values['records-out']) await writeFile(values['records-out'], recordsToJsonl(result.records))
    } finally {
      await scorer.close?.()
    }
    return 0
  },
}

/** `--scorer MODULE`: a JS module whose default export is a ScoreFn (an optional `close` export is called at the end). */
async function loadScorerModule(path: string): Promise<LoadedScorer> {
  let mod: Record<string, unknown>
  try {
    mod = await import(pathToFileURL(resolve(path)).href)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(resolve(path)))
      throw new ConfigError(`--scorer ${path}: no such module`)
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?ts$/.test(path))
      throw new ConfigError(
        `--scorer ${path}: Node ${process.version} cannot import TypeScript; use Node >= 22.18 (it strips types by default), or write the scorer as .mjs (or compile it to .mjs)`,
      )
    throw new ConfigError(`--scorer ${path}: the module failed to load: ${(error as Error).message.split('\n')[0]}`)
  }
  if (typeof mod.default !== 'function')
    throw new ConfigError(`--scorer ${path}: the module's default export must be a ScoreFn (a function), got ${typeof mod.default}`)
  const score = mod.default as ScoreFn & { close?: () => unknown }
  const close = typeof mod.close === 'function' ? (mod.close as () => unknown) : score.close?.bind(score)
  const description = typeof (score as { describe?: unknown }).describe === 'string' ? (score as unknown as { describe: string }).describe : `scorer ${path}`
  return { score, description, manifest: {}, ...(close ? { close } : {}) }
}

/** The part of `vitest-sceptic/onnx` the CLI uses. */
interface OnnxModule {
  onnxScorer(options: { model: string; batchSize?: number; workers?: number }): ScoreFn & {
    close(): Promise<void>
    readonly describe: string
    readonly settings: {
      batchSize: number
      workers: number
      threadsPerWorker: number
      optimizedReadout: boolean
      prefixSharing: string
    }
  }
}

/** `--model DIR`: the ONNX scorer, loaded only when asked for (onnxruntime-node is optional). */
async function loadModel(dir: string, options: { batchSize?: number | undefined; workers?: number | undefined }): Promise<LoadedScorer> {
  // Resolved at run time next to the built CLI (dist/cli → dist/onnx), so the ONNX
  // scorer and onnxruntime-node are loaded only by users who ask for a model.
  const entry = new URL('../onnx/index.js', import.meta.url).href
  const onnx: OnnxModule = await import(entry).catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof DataError) throw error
    throw new ConfigError(`--model needs the ONNX scorer, which failed to load: ${(error as Error).message.split('\n')[0]}`)
  })
  const scorer = onnx.onnxScorer({
    model: dir,
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  })
  // The manifest records which model ran and how: an optimized readout or not, the pool's shape.
  const { batchSize, workers, threadsPerWorker, optimizedReadout, prefixSharing } = scorer.settings
  return {
    score: scorer,
    description: scorer.describe,
    manifest: { model: dir, batchSize, workers, threadsPerWorker, optimizedReadout, prefixSharing },
    close: () => scorer.close(),
  }
}
