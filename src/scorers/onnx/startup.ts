/**
 * Starting the ONNX scorer: the chat renderer (read from tokenizer_config.json on the main
 * thread), then at once the readout (startup-readout.ts: the letter head made at startup, or
 * the full logits) and the worker pool, each worker loading ORT and the tokenizer meanwhile
 * and the model once its graph exists, then the checks that the model, the tokenizer and
 * the readout belong together.
 */
import { dirname, join } from 'node:path'
import pkg from '../../../package.json' with { type: 'json' }
import { ConfigError } from '../../core/support/errors.ts'
import { chatRenderer, type ChatOptions, type PromptRenderer } from '../prompt/chat-template.ts'
import type { ConfigShape } from './model/model-config.ts'
import type { ModelFiles } from './model/model-dir.ts'
import type { InputPlan } from './model/model-io.ts'
import type { OnnxScorerSettings, ReadoutMode } from './options.ts'
import { WorkerPool } from './runtime/pool.ts'
import type { TokenizerInfo } from './runtime/protocol.ts'
import { READOUT_FILE, type ReadoutFile } from './readout/readout-file.ts'
import { prepareReadout, type Readout } from './readout/startup-readout.ts'
import { planPrepack, type PrepackPlan } from './runtime/prepack-cache.ts'
import { cpuOnly } from './settings.ts'
import { readTokenizerConfig } from './prompt/tokenizer.ts'

/** A started scorer: what every call needs. */
export interface Started {
  readonly pool: WorkerPool
  /** What the model takes and returns. */
  readonly plan: InputPlan
  /** The workers' tokenizer. */
  readonly tokenizer: TokenizerInfo
  /** Columns of the logits per position (the graph's, else the tokenizer's vocabulary): sizes the logits cap. */
  readonly logitsColumns: number
  /** The chat template's renderer, or `undefined` for the plain prompt. */
  readonly render: PromptRenderer | undefined
  /** The readout the workers run (its temporary directory is removed by `dispose()`). */
  readonly readout: Readout
  /** What the packed-weights folder did (`loaded from …`, `written to …`, `not used: …`); absent without one. */
  readonly prepacked?: string
}

/**
 * With a packed-weights folder, the plan for this model and readout (prepack-cache.ts). The key
 * covers what the letter head is made from (the graph, the tokenizer's files, a sidecar, the
 * readout mode and prompt endings, this package's version), and an entry stores its readout,
 * so a load needs neither the tokenizer on this thread nor the rewrite.
 */
async function prepackPlanFor(settings: OnnxScorerSettings, files: ModelFiles, mode: ReadoutMode, render: PromptRenderer | undefined, signal: AbortSignal | undefined): Promise<PrepackPlan | undefined> {
  if (settings.prepackCache === undefined) return undefined
  const ending = render ? (await render(['Answer:'], signal))[0]! : null
  const source = {
    graphPath: files.modelPath,
    files: [join(files.dir, 'tokenizer.json'), join(files.dir, 'tokenizer_config.json'), join(dirname(files.modelPath), READOUT_FILE)],
    salt: JSON.stringify({ mode, ending, version: pkg.version }),
  }
  return planPrepack(settings.prepackCache, source, cpuOnly(settings.executionProviders), settings.modelPath)
}

/** The readout an entry stored: its graph is the entry's, nothing to remove. */
function storedReadout(plan: Extract<PrepackPlan, { kind: 'load' }>): Readout {
  return { modelPath: plan.modelPath, readoutFile: plan.readout.readoutFile, summary: plan.readout.summary, dispose: () => {} }
}

/** What {@link startScorer} needs besides the settings. */
export interface StartInputs {
  readonly files: ModelFiles
  readonly chat: ChatOptions
  /** The readout asked for. */
  readonly readoutMode: ReadoutMode
  /** The model's `sceptic optimize-model` sidecar, when it has one. */
  readonly sidecar: ReadoutFile | undefined
  readonly configShape: ConfigShape | undefined
  /** Test-only fault injection (the scorer's `faults` option). */
  readonly faults: { readonly tokenId: number; readonly times: number } | undefined
  /** Called with the pool as soon as it exists, so `close()` can stop a pool still loading. */
  readonly onPool: (pool: WorkerPool) => void
  /** Aborted by `close()`: a chat template still rendering its first prompts is stopped. */
  readonly signal?: AbortSignal
}

/** Start the workers and check that model, tokenizer and readout fit. Rejects with a {@link ConfigError} otherwise. */
export async function startScorer(settings: OnnxScorerSettings, { files, chat, readoutMode, sidecar, configShape, faults, onPool, signal }: StartInputs): Promise<Started> {
  const { config, configPath } = await readTokenizerConfig(files.dir)
  const render = await chatRenderer(chat, config, configPath, undefined, undefined, signal)
  // With a packed-weights folder: its entry (graph and readout), or the first worker writes one.
  const prepack = await prepackPlanFor(settings, files, readoutMode, render, signal).catch(async (error: unknown) => {
    await render?.close()
    throw error
  })
  // The workers start now (ORT, tokenizer) and load the graph once the letter head is written.
  const preparing = prepack?.kind === 'load' ? Promise.resolve(storedReadout(prepack)) : prepareReadout({ files, mode: readoutMode, sidecar, render, signal })
  const budget = faults ? new SharedArrayBuffer(4) : undefined
  if (budget) new Int32Array(budget)[0] = faults!.times
  const pool = new WorkerPool(settings.workers, {
    modelPath: preparing.then((readout) => ({ path: readout.modelPath, ...(prepack?.kind === 'write' ? { save: prepack.save } : {}) })),
    shownPath: files.modelPath,
    tokenizerDir: files.dir,
    intraOpNumThreads: settings.threadsPerWorker,
    executionProviders: settings.executionProviders as (string | { name: string })[],
    ...(configShape ? { config: configShape } : {}),
    ...(budget ? { faults: { tokenId: faults!.tokenId, budget } } : {}),
  })
  onPool(pool)
  const [prepared, loaded] = await Promise.allSettled([preparing, pool.start()])
  if (prepared.status === 'rejected') {
    if (prepack?.kind === 'write') prepack.abandon()
    await pool.close()
    await render?.close()
    throw prepared.reason
  }
  const readout = prepared.value
  const refuse = async (error: Error): Promise<never> => {
    await pool.close()
    await render?.close()
    readout.dispose()
    throw error
  }
  if (loaded.status === 'rejected') {
    if (prepack?.kind === 'write') prepack.abandon()
    await render?.close()
    readout.dispose()
    throw loaded.reason
  }
  const prepacked = prepack?.kind === 'write' ? prepack.commit(loaded.value.saved === true, { summary: readout.summary, readoutFile: readout.readoutFile }) : prepack?.summary
  const { plan, tokenizer } = loaded.value
  const { readoutFile } = readout
  const vocab = readoutFile ? readoutFile.vocab : plan.vocab
  if (readoutFile && plan.vocab !== undefined && plan.vocab !== readoutFile.letterIds.length)
    return refuse(new ConfigError(`${files.modelPath}: its logits have ${plan.vocab} columns but ${READOUT_FILE} names ${readoutFile.letterIds.length} letters; re-run \`sceptic optimize-model\``))
  if (vocab !== undefined && tokenizer.vocabSize > vocab)
    return refuse(new ConfigError(`${tokenizer.path}: the tokenizer emits ids up to ${tokenizer.vocabSize - 1} but ${files.modelPath} has only ${vocab} logits; they do not belong together`))
  return { pool, plan, tokenizer, logitsColumns: plan.vocab ?? tokenizer.vocabSize, render, readout, ...(prepacked === undefined ? {} : { prepacked }) }
}
