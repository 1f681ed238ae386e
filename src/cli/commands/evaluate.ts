/** `sceptic evaluate DATA`: score a decision file and write the report, JSON and records. */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isLabelled } from '../../core/decisions/schema.ts'
import { loadDecisions } from '../../core/decisions/load.ts'
import { deadline, MAX_DEADLINE_MS } from '../../core/support/abort.ts'
import { ConfigError, DataError, ScorerError } from '../../core/support/errors.ts'
import { evaluateWithScorer } from '../../core/evaluate/index.ts'
import { assertDebiasMode, DEBIAS_MODES, DEFAULT_DEBIAS, type AverageMode } from '../../core/requests/orderings.ts'
import { DEFAULT_PRIDE_FRACTION, MAX_EPOCHS } from '../../core/evaluate/options.ts'
import { resolveReducer, type ReducerLike } from '../../core/evaluate/reducers.ts'
import { colorEnabled, render } from '../../report/terminal.ts'
import { recordsToJsonl, resultToJson, type EvalResult } from '../../core/result/result.ts'
import type { ScoreFn } from '../../core/scorer/contract.ts'
import { ownDescription } from '../../core/scorer/description.ts'
import { cacheFromFlags, CACHE_FLAGS, integer, parse, type OptionTable } from '../args.ts'
import { cacheIdentityOf, withCache } from '../../cache/with-cache.ts'
import type { CacheIdentity } from '../../cache/key.ts'
import { useScorer } from '../scorer-lifecycle.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'
import { readCacheCounts } from '../../core/scorer/cache-counts.ts'
import { parseShard } from '../../core/shards/spec.ts'
import { partFileText, recordingScorer } from '../../core/shards/part-file.ts'
import { partFileOf, selectShard } from '../shard-run.ts'
import { withScorerManifest } from '../../core/scorer/live-manifest.ts'
import { modelInputFiles } from '../../scorers/onnx/model/model-dir.ts'
import { MODEL_FLAGS, modelOptionsFromFlags, type ModelFlagOptions } from '../model-flags.ts'
import { planOutputs, writeOutputs } from '../outputs.ts'
import { cliProgress } from '../progress.ts'
import { parseThresholdFlags, thresholdReport } from '../thresholds.ts'

const USAGE =
  'evaluate DATA (--model DIR | --scorer MODULE) [--debias MODE] [--pride-fraction F] [--batch-size N] [--workers N] [--dtype NAME] [--chat-template [--system TEXT] [--chat-template-kwargs JSON]] [--seed N] [--average probability|log] [--epochs N] [--reducer NAME] [--store-prompts] [--no-statistics] [--cache DIR | --no-cache] [--cache-mode read-write|read-only|off] [--cache-verify N] [--json-out FILE] [--records-out FILE] [--timeout SECONDS] [--shard i/n] [--threshold KEY=VALUE ...] [--stop-early [--alpha A]]'

/** A scorer the CLI loaded, with what to call when done. */
interface LoadedScorer {
  score: ScoreFn
  description: string
  manifest: Record<string, unknown>
  close?: () => unknown
  /** The cache identity, when the module exports a `cacheKey` (see docs/cache.md). */
  identity?: CacheIdentity
}

/** Every option of `sceptic evaluate`: read by the parser, `--help` and "did you mean". */
const OPTIONS = {
  model: { type: 'string', value: 'DIR', description: 'score with a local ONNX model directory (needs onnxruntime-node)' },
  scorer: { type: 'string', value: 'MODULE', description: 'score with a JS module whose default export is a ScoreFn' },
  debias: { type: 'string', value: 'MODE', default: DEFAULT_DEBIAS, description: `option orderings: ${DEBIAS_MODES.join(', ')}; none cannot measure order consistency` },
  'pride-fraction': { type: 'string', value: 'F', default: String(DEFAULT_PRIDE_FRACTION), description: 'with --debias pride: share of decisions (per option count) scored under every rotation to estimate the slot prior, in (0, 1]' },
  'batch-size': { type: 'string', value: 'N', description: 'prompts per ONNX run (--model)' },
  workers: { type: 'string', value: 'N', description: 'ONNX worker threads (--model)' },
  seed: { type: 'string', value: 'N', default: '0', description: 'seed for sampled orderings and the PriDe sample' },
  average: { type: 'string', value: 'MODE', default: 'probability', description: 'combine orderings by probability or log mean: probability, log' },
  epochs: { type: 'string', value: 'N', default: '1', description: `score every decision N times (for sampling scorers), at most ${MAX_EPOCHS}` },
  reducer: { type: 'string', value: 'NAME', default: 'mean', description: 'combine epochs: mean, median, mode, max, at_least_K, pass_at_K, or at_least_K_ge_T, pass_at_K_ge_T (an epoch counts when it scores ≥ T)' },
  'store-prompts': { type: 'boolean', description: 'keep each prompt in the records' },
  'no-statistics': { type: 'boolean', description: 'skip intervals, baselines and verdicts (the bootstrap); they are attached by default' },
  ...MODEL_FLAGS,
  ...CACHE_FLAGS,
  'json-out': { type: 'string', value: 'FILE', description: 'write the result as JSON' },
  'records-out': { type: 'string', value: 'FILE', description: 'write one record per decision as JSONL' },
  timeout: { type: 'string', value: 'SECONDS', description: 'bound the whole run, up to 1e9 s; past it in-flight work is cancelled and the run exits 4 (no bound by default)' },
  shard: { type: 'string', value: 'I/N', description: 'score only part I of N (split by group_id, else id); needs --records-out; join parts with sceptic merge' },
  threshold: { type: 'string', multiple: true, value: 'KEY=VALUE', description: 'gate on a metric: accuracy=0.7 (lower bound), slotSensitivityGap=..0.1 (upper), preferenceFairness=-0.05..0.05; exit 1 when one fails' },
  'stop-early': { type: 'boolean', description: 'score in a seeded random order and stop once every --threshold is decided by anytime-valid bounds (or one fails)' },
  alpha: { type: 'string', value: 'A', description: 'with --stop-early: level of the anytime-valid bounds, in (0, 1)', default: '0.05' },
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
    const epochs = integer(values.epochs, 'epochs', 1, MAX_EPOCHS) ?? 1
    const reducer = resolveReducer((values.reducer ?? 'mean') as ReducerLike)
    const prideFraction = fraction(values['pride-fraction'], 'pride-fraction')
    // The parser fills in the default, so ask the command line whether the user gave it.
    if (debias !== 'pride' && argv.some((arg) => /^--pride-fraction(=|$)/.test(arg))) throw new UsageError('--pride-fraction needs --debias pride: only pride scores a sample under every rotation')
    const modelOptions = modelOptionsFromFlags(raw, values.model !== undefined)

    const thresholds = parseThresholdFlags(raw.threshold as string[] | undefined)
    const stopEarly = raw['stop-early'] === true
    // The parser fills in the default, so ask the command line whether the user gave it.
    if (!stopEarly && argv.some((arg) => /^--alpha(=|$)/.test(arg))) throw new UsageError('--alpha needs --stop-early: it is the level of the anytime-valid bounds')
    if (stopEarly && Object.keys(thresholds).length === 0) throw new UsageError('--stop-early needs at least one --threshold KEY=VALUE: the thresholds are what the run decides')
    const alpha = stopEarly ? Number(values.alpha) : undefined
    if (alpha !== undefined && !(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must be a number in (0, 1), got "${values.alpha}"`)
    if (Object.keys(thresholds).length > 0 && !stopEarly && values.shard !== undefined)
      throw new UsageError('--threshold cannot be combined with --shard: a part is not the whole set; gate the merged result')
    if (stopEarly && values.shard !== undefined)
      throw new ConfigError('--stop-early cannot be combined with --shard: a part that stops on its own decisions would not merge into a full run; score the whole set with --stop-early, or shard without it')
    const timeoutSeconds = seconds(values.timeout, 'timeout')
    const data = positionals[0]!
    const shard = values.shard !== undefined ? parseShard(values.shard) : undefined
    if (shard && values['records-out'] === undefined)
      throw new UsageError('--shard needs --records-out FILE: the part\'s records (and the part file beside them) are what `sceptic merge` reads')
    const outputs = await planOutputs(
      [
        { flag: '--json-out', path: values['json-out'] },
        { flag: '--records-out', path: values['records-out'] },
        { flag: '--records-out (part file)', path: shard ? partFileOf(values['records-out']!) : undefined },
      ],
      [data, ...(values.scorer !== undefined ? [values.scorer] : []), ...(values.model !== undefined ? modelInputFiles(values.model) : [])],
    )
    const all = await loadDecisions(data)
    const selection = shard ? selectShard(all, shard, debias) : undefined
    const decisions = selection ? selection.evaluate : all
    const total = decisions.filter(isLabelled).length
    if (total === 0 && !selection)
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
      let part: ((records: number) => string) | undefined
      const result = await useScorer<LoadedScorer, EvalResult | undefined>(
        () => (values.model !== undefined ? loadModel(values.model, { batchSize, workers, ...modelOptions }) : loadScorerModule(values.scorer!)),
        (scorer) => {
          const cached = withCache(scorer.score, {
            cache: cacheFromFlags(raw),
            identity: scorer.identity ?? cacheIdentityOf(scorer.score, scorer.description),
            onWarning: (message) => process.stderr.write(`${message}\n`),
          })
          // A shard keeps every answer for the merge (docs/scaling-out.md).
          const recording = selection ? recordingScorer(cached) : undefined
          if (selection && recording)
            part = (records) =>
              partFileText({
                shard: shard!,
                fingerprint: selection.fingerprint,
                rows: all.length,
                settings: { debias, seed, epochs, reducer: reducer.name, average: values.average ?? 'probability', storePrompts: raw['store-prompts'] === true, ...(raw['no-statistics'] === true ? { statistics: false as const } : {}) },
                scorer: scorer.description,
                manifest: scorer.manifest,
                cache: readCacheCounts(cached),
                records,
                decisions: selection.rows,
                answers: recording.answers,
              })
          // A shard can hold no labelled decision (small data, many shards): it leaves an empty part.
          if (total === 0) return Promise.resolve(undefined)
          return evaluateWithScorer(
            decisions,
            recording?.score ?? cached,
            {
              debias,
              seed,
              scorerDescription: scorer.description,
              manifest: shard ? withScorerManifest({ shard: `${shard.index}/${shard.count}` }, { manifestEntries: () => scorer.manifest }) : scorer.manifest,
              epochs,
              reducer,
              ...(values.average !== undefined ? { average: values.average as AverageMode } : {}),
              storePrompts: raw['store-prompts'] === true,
              ...(prideFraction !== undefined ? { prideFraction } : {}),
              ...(raw['no-statistics'] === true ? { statistics: false } : {}),
              ...(Object.keys(thresholds).length > 0 ? { thresholds } : {}),
              ...(stopEarly ? { stopEarly: { alpha: alpha! } } : {}),
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
          )
        },
        signal,
      )
      progress.done()
      if (result === undefined) {
        await writeOutputs(
          outputs.filter((o) => o.flag !== '--json-out').map((output) => ({ output, content: output.flag === '--records-out' ? '' : part!(0) })),
        )
        process.stderr.write(
          `shard ${shard!.index}/${shard!.count} holds none of the ${all.filter(isLabelled).length} labelled decisions: wrote an empty part${values['json-out'] !== undefined ? ' (no --json-out: there is no result)' : ''}; merge every part with \`sceptic merge\`\n`,
        )
        return 0
      }
      process.stdout.write(render(result, { color: colorEnabled(process.stdout) }) + '\n')
      await writeOutputs(
        outputs.map((output) => ({
          output,
          content:
            output.flag === '--json-out'
              ? JSON.stringify(resultToJson(result), null, 2) + '\n'
              : output.flag === '--records-out'
                ? recordsToJsonl(result.records)
                : part!(result.records.length),
        })),
      )
      if (shard) process.stderr.write(`shard ${shard.index}/${shard.count}: ${total} of ${all.filter(isLabelled).length} labelled decisions scored; merge every part with \`sceptic merge\`\n`)
      if (Object.keys(thresholds).length > 0) {
        // Gating outside Vitest: the same verdicts as the threshold tests, exit 1 when one fails.
        const report = thresholdReport(result, thresholds)
        process.stdout.write(['', 'thresholds:', ...report.lines.map((line) => `  ${line}`), ''].join('\n'))
        if (!report.pass) return 1
      }
    } finally {
      progress.done()
      limit?.clear()
    }
    return 0
  },
}

/** A positive number of seconds up to {@link MAX_DEADLINE_MS} (10^9 s), or a UsageError naming the option. */
function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!(n > 0 && n <= MAX_DEADLINE_MS / 1000)) throw new UsageError(`--${name} must be a positive number of seconds, got "${value}" (at most 1e9 s, about 31 years)`)
  return n
}

/** A number in (0, 1], or a UsageError naming the option. */
function fraction(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value.trim() === '' || !(n > 0 && n <= 1)) throw new UsageError(`--${name} must be a number in (0, 1], got "${value}"`)
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
  const own: CacheIdentity | undefined = cacheKey ? { kind: 'user', label: `scorer ${resolve(path)}`, settings: { cacheKey } } : cacheIdentityOf(score)
  // The module's own bytes are keyed too: an edited scorer misses instead of serving its old vectors.
  const identity: CacheIdentity | undefined = own ? { ...own, files: { ...own.files, scorerModule: resolve(path) } } : undefined
  // A scorer's own manifest entries (an openAIScorer's requests per endpoint) are read at the end of the run.
  return { score, description, manifest: withScorerManifest({}, score), ...(close ? { close } : {}), ...(identity ? { identity } : {}) }
}

/** The part of `vitest-sceptic/onnx` the CLI uses. */
interface OnnxModule {
  onnxScorer(options: { model: string; batchSize?: number; workers?: number } & ModelFlagOptions): ScoreFn & {
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
  }
}

/** The model flags present in `options`, nothing else (absent ones leave the manifest as before). */
function modelFlagsOnly(options: ModelFlagOptions): ModelFlagOptions {
  return {
    ...(options.dtype !== undefined ? { dtype: options.dtype } : {}),
    ...(options.chatTemplate ? { chatTemplate: options.chatTemplate } : {}),
    ...(options.system !== undefined ? { system: options.system } : {}),
    ...(options.chatTemplateKwargs !== undefined ? { chatTemplateKwargs: options.chatTemplateKwargs } : {}),
  }
}
