/** `sceptic evaluate DATA`: score a decision file and write the report, JSON and records. */
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isLabelled, loadDecisions } from '../../core/decisions.ts'
import { deadline } from '../../core/abort.ts'
import { ConfigError, DataError, ScorerError } from '../../core/errors.ts'
import { evaluateWithScorer } from '../../core/evaluate.ts'
import { assertDebiasMode, type AverageMode } from '../../core/orderings.ts'
import { resolveReducer, type ReducerLike } from '../../core/reducers.ts'
import { colorEnabled, render } from '../../core/render.ts'
import { recordsToJsonl, resultToJson } from '../../core/result.ts'
import type { ScoreFn } from '../../core/score.ts'
import { cacheFromFlags, CACHE_FLAGS, integer, parse } from '../args.ts'
import { cacheIdentityOf, withCache } from '../../cache/with-cache.ts'
import type { CacheIdentity } from '../../cache/key.ts'
import { useScorer } from '../scorer-lifecycle.ts'
import { UsageError, type Command } from '../command.ts'
import { planOutputs, writeOutputs } from '../outputs.ts'
import { cliProgress } from '../progress.ts'

const USAGE =
  'evaluate DATA (--model DIR | --scorer MODULE) [--debias MODE] [--batch-size N] [--workers N] [--seed N] [--average probability|log] [--epochs N] [--reducer NAME] [--store-prompts] [--cache DIR | --no-cache] [--cache-mode read-write|read-only|off] [--json-out FILE] [--records-out FILE] [--timeout SECONDS]'

/** A scorer the CLI loaded, with what to call when done. */
interface LoadedScorer {
  score: ScoreFn
  description: string
  manifest: Record<string, unknown>
  close?: () => unknown
  /** The cache identity, when the module exports a `cacheKey` (see docs/cache.md). */
  identity?: CacheIdentity
}

export const evaluateCommand: Command = {
  usage: USAGE,
  summary: 'Score a JSONL decision file and print the sceptic report.',
  async run(argv) {
    const { values: raw, positionals } = parse(
      argv,
      {
        model: { type: 'string' },
        scorer: { type: 'string' },
        debias: { type: 'string', default: 'none' },
        'batch-size': { type: 'string' },
        workers: { type: 'string' },
        seed: { type: 'string' },
        average: { type: 'string' },
        epochs: { type: 'string' },
        reducer: { type: 'string' },
        'store-prompts': { type: 'boolean' },
        ...CACHE_FLAGS,
        'json-out': { type: 'string' },
        'records-out': { type: 'string' },
        timeout: { type: 'string' },
      },
      USAGE,
    )
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

    const timeoutSeconds = seconds(values.timeout, 'timeout')
    const data = positionals[0]!
    const outputs = await planOutputs(
      [
        { flag: '--json-out', path: values['json-out'] },
        { flag: '--records-out', path: values['records-out'] },
      ],
      [data, ...(values.scorer !== undefined ? [values.scorer] : []), ...(values.model !== undefined ? modelFiles(values.model) : [])],
    )
    const decisions = await loadDecisions(data)
    const total = decisions.filter(isLabelled).length
    if (total === 0)
      throw new DataError(`none of the ${decisions.length} decisions has an answer_id, so there is nothing to score against`, {
        file: data,
      })
    // --timeout bounds everything from here: loading the scorer, scoring, closing it.
    let scored = 0
    const limit =
      timeoutSeconds === undefined
        ? undefined
        : deadline(
            timeoutSeconds * 1000,
            () => new ScorerError(`the run timed out after ${timeoutSeconds} s (--timeout) with ${scored} of ${total} decisions scored; nothing was written`),
          )
    const signal = limit?.signal
    const progress = cliProgress(data)
    try {
      const result = await useScorer(
        () => (values.model !== undefined ? loadModel(values.model, { batchSize, workers }) : loadScorerModule(values.scorer!)),
        (scorer) =>
          evaluateWithScorer(
            decisions,
            withCache(scorer.score, {
              cache: cacheFromFlags(raw),
              identity: scorer.identity ?? cacheIdentityOf(scorer.score, scorer.description),
              onWarning: (message) => process.stderr.write(`${message}\n`),
            }),
            {
              debias,
              seed,
              scorer: scorer.description,
              manifest: scorer.manifest,
              epochs,
              reducer,
              ...(values.average !== undefined ? { average: values.average as AverageMode } : {}),
              storePrompts: raw['store-prompts'] === true,
              ...(signal ? { signal } : {}),
              onProgress: (p) => {
                scored = p.scored
                progress.update(p)
              },
              onWarning: (message) => {
                progress.done()
                process.stderr.write(`${message}\n`)
              },
            },
          ),
        signal,
      )
      progress.done()
      process.stdout.write(render(result, { color: colorEnabled(process.stdout) }) + '\n')
      await writeOutputs(
        outputs.map((output) => ({
          output,
          content: output.flag === '--json-out' ? JSON.stringify(resultToJson(result), null, 2) + '\n' : recordsToJsonl(result.records),
        })),
      )
    } finally {
      progress.done()
      limit?.clear()
    }
    return 0
  },
}

/** A positive number of seconds, or a UsageError naming the option. */
function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--${name} must be a positive number of seconds, got "${value}"`)
  return n
}

/** The files of a model directory an output must never replace. */
function modelFiles(dir: string): string[] {
  return ['model.onnx', join('onnx', 'model.onnx'), 'tokenizer.json'].map((file) => join(dir, file))
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
    throw new ConfigError(`--scorer ${path}: the module failed to load: ${(error as Error).message.split('\n')[0]}`)
  }
  if (typeof mod.default !== 'function')
    throw new ConfigError(`--scorer ${path}: the module's default export must be a ScoreFn (a function), got ${typeof mod.default}`)
  const score = mod.default as ScoreFn & { close?: () => unknown }
  const close = typeof mod.close === 'function' ? (mod.close as () => unknown) : score.close?.bind(score)
  const description = typeof (score as { describe?: unknown }).describe === 'string' ? (score as unknown as { describe: string }).describe : `scorer ${path}`
  const cacheKey = typeof mod.cacheKey === 'string' && mod.cacheKey !== '' ? mod.cacheKey : undefined
  const identity: CacheIdentity | undefined = cacheKey ? { kind: 'user', label: `scorer ${resolve(path)}`, settings: { cacheKey } } : undefined
  return { score, description, manifest: {}, ...(close ? { close } : {}), ...(identity ? { identity } : {}) }
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
