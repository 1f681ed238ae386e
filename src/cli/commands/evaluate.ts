/** `sceptic evaluate DATA`: score a decision file and write the report, JSON and records. */
import { builtEntry } from '../built-entry.ts'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { CacheIdentity } from '../../cache/key.ts'
import { cacheMayServe, resolveCache } from '../../cache/config.ts'
import { cacheIdentityOf, withUserKey } from '../../cache/with-cache.ts'
import { loadDecisions } from '../../core/decisions/load.ts'
import { recordsToJsonl, resultToJson, type EvalResult } from '../../core/result/result.ts'
import type { ScoreFn } from '../../core/scorer/contract.ts'
import { ownDescription } from '../../core/scorer/description.ts'
import { withScorerManifest } from '../../core/scorer/live-manifest.ts'
import { parseShard } from '../../core/shards/spec.ts'
import { deadline, MAX_DEADLINE_MS } from '../../core/support/abort.ts'
import { ConfigError, DataError, ScorerError } from '../../core/support/errors.ts'
import type { Threshold } from '../../core/thresholds/verdict.ts'
import { colorEnabled, render } from '../../report/terminal.ts'
import { runEvaluation, selectRun } from '../../run/run.ts'
import { parseRunSettings, type RunSettings } from '../../run/settings.ts'
import { modelInputFiles } from '../../scorers/onnx/model/model-dir.ts'
import { cacheFromFlags, integer, parse } from '../args.ts'
import type { Command } from '../command.ts'
import { isGgufModel, loadGgufModel } from '../gguf-model.ts'
import { modelOptionsFromFlags, refuseOtherFormatFlags, type ModelFlagOptions } from '../model-flags.ts'
import { planOutputs, writeOutputs } from '../../core/support/outputs.ts'
import { cliProgress } from '../progress.ts'
import { useScorer } from '../scorer-lifecycle.ts'
import { partFileOf } from '../shard-run.ts'
import { gateExitCode, parseThresholdFlags } from '../thresholds.ts'
import { UsageError } from '../usage-error.ts'
import { evaluateHelp } from '../help/evaluate.ts'

const { usage: USAGE, options: OPTIONS } = evaluateHelp

/** A scorer the CLI loaded, with what to call when done. */
interface LoadedScorer {
  score: ScoreFn
  description: string
  manifest: Record<string, unknown>
  close?: () => unknown
  /** Start loading the model now, before the first call (the ONNX scorer): its workers load while the run plans and the cache hashes. */
  start?: () => void
  /** The cache identity, when the module exports a `cacheKey` (see docs/cache.md). */
  identity?: CacheIdentity
  /** A `--scorer` module's absolute path: its bytes are part of a shard part's scorer identity. */
  module?: string
}

export const evaluateCommand: Command = {
  ...evaluateHelp,
  async run(argv) {
    const { values: raw, positionals } = parse(argv, OPTIONS, USAGE)
    const flags = readFlags(raw as Record<string, string | boolean | string[] | undefined>, positionals, argv)
    const { data, settings, thresholds, shard } = flags
    // The score cache is the tool's own (read, grown, cleared by it), in use or not: no output may land in it.
    const cache = resolveCache(cacheFromFlags(raw))
    const outputs = await planOutputs(
      [
        { flag: '--json-out', path: flags.jsonOut },
        { flag: '--records-out', path: flags.recordsOut },
        { flag: '--records-out (part file)', path: shard ? partFileOf(flags.recordsOut!) : undefined },
      ],
      [data, ...(flags.scorer !== undefined ? [flags.scorer] : []), ...(flags.model !== undefined ? (isGgufModel(flags.model) ? [flags.model] : modelInputFiles(flags.model)) : [])],
      [{ flag: 'the score cache', path: cache.dir }],
    )
    const all = await loadDecisions(data)
    const selected = selectRun(all, settings.debias, shard && { spec: shard, label: '--shard' })
    const { labelled } = selected
    if (!shard && labelled.all === 0) throw new DataError(`none of the ${all.length} decisions has an answer_id, so there is nothing to score against`, { file: data })
    // --timeout bounds everything from here: loading the scorer, scoring, closing it.
    let scored = 0
    // Counted from the process's start (performance.now()), so the process ends within a moment of N, its startup included.
    const limit = flags.timeoutSeconds === undefined ? undefined : deadline(Math.max(0, flags.timeoutSeconds * 1000 - performance.now()), () => timedOut(flags.timeoutSeconds!, scored, labelled.scored))
    const progress = cliProgress(data)
    try {
      const { result, part } = await useScorer(
        (): Promise<LoadedScorer> => (flags.model === undefined ? loadScorerModule(flags.scorer!) : isGgufModel(flags.model) ? loadGgufModel(flags.model, flags.modelOptions) : loadModel(flags.model, flags.modelOptions)),
        (scorer) => {
          // Once in use (a failed run closes the scorer), with something to score and no cache that could serve it all
          // (a warm run that never calls the scorer must not pay for loading the model).
          if (labelled.scored > 0 && !cacheMayServe(cacheFromFlags(raw))) scorer.start?.()
          return runEvaluation(selected, scorer, settings, {
            cache: cacheFromFlags(raw),
            signal: limit?.signal,
            thresholds,
            onCacheWarning: (message) => process.stderr.write(`${message}\n`),
            onProgress: (p) => ((scored = p.scored), progress.update(p)),
            onWarning: (message) => (progress.done(), process.stderr.write(`${message}\n`)),
          })
        },
        limit?.signal,
      )
      progress.done()
      if (result === undefined) {
        await writeOutputs(outputs.filter((o) => o.flag !== '--json-out').map((output) => ({ output, content: output.flag === '--records-out' ? '' : part! })))
        const noJson = flags.jsonOut !== undefined ? ' (no --json-out: there is no result)' : ''
        process.stderr.write(`shard ${shard!.index}/${shard!.count} holds none of the ${labelled.all} labelled decisions: wrote an empty part${noJson}; merge every part with \`sceptic merge\`\n`)
        return 0
      }
      process.stdout.write(render(result, { color: colorEnabled(process.stdout) }) + '\n')
      await writeOutputs(outputs.map((output) => ({ output, content: outputText(output.flag, result, part) })))
      if (shard) process.stderr.write(`shard ${shard.index}/${shard.count}: ${labelled.scored} of ${labelled.all} labelled decisions scored; merge every part with \`sceptic merge\`\n`)
      return gateExitCode(data, result, { thresholds, maxFailureRate: settings.maxFailureRate, gated: flags.gated, part: shard !== undefined })
    } finally {
      progress.done()
      limit?.clear()
    }
  },
}

/** What `evaluate` was asked to do, its flags checked: each run setting by its one rule (src/run/settings.ts). */
function readFlags(raw: Record<string, string | boolean | string[] | undefined>, positionals: readonly string[], argv: readonly string[]) {
  const values = raw as Record<string, string | undefined>
  // The parser fills in defaults, so ask the command line whether the user gave a flag.
  const given = (flag: string) => argv.some((arg) => new RegExp(`^--${flag}(=|$)`).test(arg))
  if (positionals.length !== 1) throw new UsageError(`evaluate takes one DATA file. Usage: sceptic ${USAGE}`)
  if ((values.model === undefined) === (values.scorer === undefined)) throw new UsageError(`give exactly one of --model DIR or --scorer MODULE. Usage: sceptic ${USAGE}`)
  const stopEarly = raw['stop-early'] === true
  const settings = runSettingsFromFlags(values, stopEarly)
  if (settings.debias !== 'pride' && given('pride-fraction')) throw new UsageError('--pride-fraction needs --debias pride: only pride scores a sample under every rotation')
  if (!stopEarly && given('alpha')) throw new UsageError('--alpha needs --stop-early: it is the level of the anytime-valid bounds')
  const thresholds = parseThresholdFlags(raw.threshold as string[] | undefined)
  // --max-failure-rate alone gates too: on the share of decisions that scored.
  const gated = Object.keys(thresholds).length > 0 || given('max-failure-rate')
  if (stopEarly && Object.keys(thresholds).length === 0) throw new UsageError('--stop-early needs at least one --threshold KEY=VALUE: the thresholds are what the run decides')
  if (gated && !stopEarly && values.shard !== undefined)
    throw new UsageError(`${Object.keys(thresholds).length > 0 ? '--threshold' : '--max-failure-rate'} cannot be combined with --shard: a part is not the whole set; gate the merged result`)
  if (stopEarly && values.shard !== undefined)
    throw new ConfigError('--stop-early cannot be combined with --shard: a part that stops on its own decisions would not merge into a full run; score the whole set with --stop-early, or shard without it')
  const shard = values.shard !== undefined ? parseShard(values.shard) : undefined
  if (shard && values['records-out'] === undefined)
    throw new UsageError('--shard needs --records-out FILE: the part\'s records (and the part file beside them) are what `sceptic merge` reads')
  const modelOptions = { batchSize: integer(values['batch-size'], 'batch-size', 1), workers: integer(values.workers, 'workers', 1), ...modelOptionsFromFlags(raw as Record<string, string | boolean | undefined>, values.model !== undefined) }
  return {
    data: positionals[0]!,
    model: values.model,
    scorer: values.scorer,
    modelOptions,
    settings,
    thresholds,
    gated,
    shard,
    timeoutSeconds: seconds(values.timeout, 'timeout'),
    jsonOut: values['json-out'],
    recordsOut: values['records-out'],
  }
}

/** The run settings the flags give; a bad one is a ConfigError naming its flag, stating its one rule. */
function runSettingsFromFlags(values: Record<string, string | undefined>, stopEarly: boolean): RunSettings {
  const number = (value: string | undefined) => (value === undefined ? undefined : value.trim() === '' ? Number.NaN : Number(value))
  const flagOf = (path: string) => `--${path.split('.').at(-1)!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
  return parseRunSettings(
    {
      debias: values.debias,
      average: values.average,
      prideFraction: number(values['pride-fraction']),
      seed: number(values.seed),
      epochs: number(values.epochs),
      reducer: values.reducer,
      storePrompts: values['store-prompts'] !== undefined,
      statistics: values['no-statistics'] === undefined,
      stopEarly: stopEarly ? { alpha: number(values.alpha) } : false,
      maxFailureRate: number(values['max-failure-rate']),
    },
    { name: flagOf, given: (path) => values[flagOf(path).slice(2)] },
  )
}

/** The run past `--timeout`: nothing is written. */
function timedOut(timeoutSeconds: number, scored: number, total: number): ScorerError {
  return new ScorerError(`the run timed out after ${timeoutSeconds} s (--timeout) with ${scored} of ${total} decisions scored; nothing was written`)
}

/** What goes into each output file. */
function outputText(flag: string, result: EvalResult, part: string | undefined): string {
  if (flag === '--json-out') return JSON.stringify(resultToJson(result), null, 2) + '\n'
  if (flag === '--records-out') return recordsToJsonl(result.records)
  return part!
}

/** A positive number of seconds up to {@link MAX_DEADLINE_MS} (10^9 s), or a UsageError naming the option. */
function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!(n > 0 && n <= MAX_DEADLINE_MS / 1000)) throw new UsageError(`--${name} must be a positive number of seconds, got "${value}" (at most 1e9 s, about 31 years)`)
  return n
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
  const description = ownDescription(score) ?? `scorer ${path}`
  const cacheKey = typeof mod.cacheKey === 'string' && mod.cacheKey !== '' ? mod.cacheKey : undefined
  // A module's cacheKey joins the exported scorer's own identity (a remote one's hits are still re-checked live).
  const own: CacheIdentity | undefined = cacheKey ? withUserKey(cacheIdentityOf(score), cacheKey, `scorer ${resolve(path)}`) : cacheIdentityOf(score)
  // The module's own bytes are keyed too: an edited scorer misses instead of serving its old vectors.
  const identity: CacheIdentity | undefined = own ? { ...own, files: { ...own.files, scorerModule: resolve(path) } } : undefined
  // A scorer's own manifest entries (an openAIScorer's requests per endpoint) are read at the end of the run.
  return { score, description, manifest: withScorerManifest({}, score), module: resolve(path), ...(close ? { close } : {}), ...(identity ? { identity } : {}) }
}

/** The part of `vitest-sceptic/onnx` the CLI uses. */
interface OnnxModule {
  onnxScorer(options: { model: string; batchSize?: number; workers?: number } & ModelFlagOptions): ScoreFn & {
    ready(): Promise<unknown>
    close(): Promise<void>
    readonly description: string
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
async function loadModel(dir: string, options: { batchSize?: number | undefined; workers?: number | undefined } & ModelFlagOptions): Promise<LoadedScorer> {
  refuseOtherFormatFlags('onnx', dir, options)
  // Resolved at run time in the built package (dist/onnx), so the ONNX scorer and
  // onnxruntime-node are loaded only by users who ask for a model.
  const entry = builtEntry('onnx/index.js')
  const onnx: OnnxModule = await import(entry).catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof DataError) throw error
    throw new ConfigError(`--model needs the ONNX scorer, which failed to load: ${(error as Error).message.split('\n')[0]}`)
  })
  const scorer = onnx.onnxScorer({
    model: dir,
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...modelFlagsOnly(options),
  })
  // The manifest records which model ran and how: an optimized readout or not, the pool's shape.
  const { batchSize, workers, threadsPerWorker, optimizedReadout, prefixSharing } = scorer.settings
  return {
    score: scorer,
    description: scorer.description,
    // Its `readout` (the letter head made at startup, or the full logits and why) is read at the end of the run.
    manifest: withScorerManifest({ model: dir, batchSize, workers, threadsPerWorker, optimizedReadout, prefixSharing, ...modelFlagsOnly(options) }, scorer),
    close: () => scorer.close(),
    // A failed start is thrown by the first call (the same promise); unawaited here, it must not end the process.
    start: () => void scorer.ready().catch(() => undefined),
  }
}

/** The model flags present in `options`, nothing else (absent ones leave the manifest as before). */
function modelFlagsOnly(options: ModelFlagOptions): ModelFlagOptions {
  return {
    ...(options.dtype !== undefined ? { dtype: options.dtype } : {}),
    ...(options.chatTemplate ? { chatTemplate: options.chatTemplate } : {}),
    ...(options.system !== undefined ? { system: options.system } : {}),
    ...(options.chatTemplateKwargs !== undefined ? { chatTemplateKwargs: options.chatTemplateKwargs } : {}),
    ...(options.prepackCache !== undefined ? { prepackCache: options.prepackCache } : {}),
  }
}
