/**
 * `vitest-sceptic/gguf`: score decisions with a GGUF model in-process, through
 * node-llama-cpp (llama.cpp on the CPU). The pipeline is the ONNX scorer's: prompt texts
 * (the template, the chat template), tokens and the letters read in context, too-long
 * prompts set aside, then evaluation with shared prefixes (evaluate.ts) and the letter
 * probabilities put back in request order.
 *
 * node-llama-cpp is an optional peer dependency, imported on the first call; importing
 * this module does not load it.
 */
import { cpuKind } from '../../core/support/cpu-kind.ts'
import { ConfigError, ScorerError } from '../../core/support/errors.ts'
import type { CacheIdentity, ScoreContext, ScoreFailure, ScoreRequest } from '../../core/scorer/contract.ts'
import { tooLongFailures } from '../onnx/prompt/context-length.ts'
import { promptTexts } from '../prompt/chat-template.ts'
import { evaluateRows, minimumTokens } from './evaluate.ts'
import { assertLlamaInstalled, checkGgufFile, llamaBuild } from './model-file.ts'
import { parseOptions, resolveSettings, type GgufScorerOptions, type GgufScorerSettings, type GgufScorerStats } from './options.ts'
import { lifecycle, type GgufLifecycle } from './lifecycle.ts'
import { startScorer, type Started } from './startup.ts'

/** What a GGUF scorer returns for one request: the letter probabilities, or a `too_long` failure. */
export type GgufOutcome = number[] | ScoreFailure

/** A GGUF scorer: a fallible score function with a lifecycle. */
export interface GgufScorer extends GgufLifecycle {
  (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<GgufOutcome[]>
  /** One line for the report and the manifest, e.g. `gguf models/tiny.gguf (4 sequences × 2 threads, KV cache F32)`. */
  readonly description: string
  readonly settings: GgufScorerSettings
  /** Token counts since creation: evaluated against the minimum. */
  readonly stats: GgufScorerStats
  /** The GGUF file's bytes, the llama.cpp build and the settings that change the numbers; `undefined` with a custom `template`. */
  readonly cacheIdentity: CacheIdentity | undefined
  /** What the run's manifest records of this scorer. */
  manifestEntries(): { llamaCpp: string; nodeLlamaCpp: string; kvCacheType: string; flashAttention: boolean; tokensEvaluated: number; minimumTokens: number }
}

/**
 * Create a GGUF scorer. Cheap and synchronous: it checks the options (a misspelt key is a
 * {@link ConfigError} naming it), that the model is a GGUF file and that node-llama-cpp is
 * installed (one line saying what to install otherwise), and loads nothing until the first
 * call or {@link GgufScorer.ready}.
 */
export function ggufScorer(options: GgufScorerOptions): GgufScorer {
  const checked = parseOptions(options)
  const settings = resolveSettings(checked) as { -readonly [K in keyof GgufScorerSettings]: GgufScorerSettings[K] }
  checkGgufFile(settings.modelPath)
  const build = llamaBuild(assertLlamaInstalled())
  const template = checked.template
  const stats: GgufScorerStats = { requests: 0, promptTokens: 0, tokensEvaluated: 0, minimumTokens: 0 }
  const { ready, call, close } = lifecycle<Started>(
    (onDispose, signal) =>
      startScorer(settings, { chat: checked, onDispose, signal }).then((started) => {
        settings.contextLength ??= Math.min(started.trainContext, 4096)
        return started
      }),
    'GGUF scorer',
  )

  const run = async (started: Started, requests: readonly ScoreRequest[], signal: AbortSignal | undefined): Promise<GgufOutcome[]> => {
    signal?.throwIfAborted()
    if (requests.length === 0) return []
    const texts = await promptTexts(requests, template, started.render, signal)
    // A chat template's text spells out its special tokens: no BOS on top.
    const plain = !started.render
    const ids = texts.map((text) => started.encode(text, plain))
    const empty = ids.findIndex((row) => row.length === 0)
    if (empty >= 0) throw new ScorerError(`request #${empty} encodes to no tokens; nothing to score`)
    const letters = texts.map((text, r) => started.letterIds(text, requests[r]!.criterion.options.length, plain))
    const results = tooLongFailures(ids, settings.contextLength) as GgufOutcome[]
    const rows = requests.map((_, r) => r).filter((r) => results[r] === undefined)
    const cancel = { cancelled: false }
    const onAbort = () => (cancel.cancelled = true)
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const { probabilities, tokensEvaluated } = await evaluateRows(started.sequences, { ids, letters, rows }, cancel)
      signal?.throwIfAborted()
      for (const r of rows) results[r] = probabilities.get(r)!
      stats.requests += rows.length
      for (const r of rows) stats.promptTokens += ids[r]!.length
      stats.tokensEvaluated += tokensEvaluated
      stats.minimumTokens += minimumTokens(ids, rows)
      return results
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  // Calls run one after another: the sequences hold one call's prefixes at a time.
  const score = (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<GgufOutcome[]> => call((started) => run(started, requests, context?.signal))

  // A custom template function is code the key cannot see: no cache identity.
  const identity: CacheIdentity | undefined = template ? undefined : { kind: 'gguf', label: settings.modelPath, files: { model: settings.modelPath }, settings: identitySettings(checked, settings, build) }
  const description = describeScorer(checked, settings)
  return Object.defineProperties(score as GgufScorer, {
    ready: { value: () => ready().then(({ architecture, trainContext, vocab }) => ({ architecture, trainContext, vocab })) },
    close: { value: close },
    description: { value: description, enumerable: true },
    settings: { value: settings, enumerable: true },
    stats: { value: stats, enumerable: true },
    cacheIdentity: { value: identity },
    manifestEntries: {
      value: () => ({
        llamaCpp: build.llamaCpp,
        nodeLlamaCpp: build.nodeLlamaCpp,
        kvCacheType: settings.kvCacheType,
        flashAttention: settings.flashAttention,
        tokensEvaluated: stats.tokensEvaluated,
        minimumTokens: stats.minimumTokens,
      }),
    },
  })
}

/** The report's line for the scorer, e.g. `gguf models/tiny.gguf (1 sequence × 1 thread, KV cache F32)`. */
function describeScorer(options: GgufScorerOptions, settings: GgufScorerSettings): string {
  const chat = options.chatTemplate === undefined || options.chatTemplate === false ? '' : options.chatTemplate === true ? "the model's chat template; " : 'a custom chat template; '
  return `gguf ${options.model} (${chat}${settings.sequences} sequence${settings.sequences === 1 ? '' : 's'} × ${settings.threads} thread${settings.threads === 1 ? '' : 's'}, KV cache ${settings.kvCacheType}${settings.flashAttention ? ', flash attention' : ''})`
}

/**
 * The settings part of the cache key: the llama.cpp build, the KV cache type and flash
 * attention (each moves the probabilities), the threads and sequences that computed them
 * (threads split llama.cpp's sums differently; sequences side by side once swapped requests'
 * outputs), the context length (too_long failures) and the chat
 * options when a template is on, and the CPU kind: llama.cpp loads a CPU backend per kind
 * (haswell, icelake…), whose quantized dot products differ. The batch size is left out: it
 * changes only float rounding.
 */
function identitySettings(options: GgufScorerOptions, settings: GgufScorerSettings, build: { nodeLlamaCpp: string; llamaCpp: string }): Record<string, unknown> {
  // `readout`: scores from earlier readouts (the whole vocabulary before 0.4; the letters through the sampler's bias before 0.5) are not served.
  const out: Record<string, unknown> = { ...build, readout: 'letter-logits', kvCacheType: settings.kvCacheType, flashAttention: settings.flashAttention, threads: settings.threads, sequences: settings.sequences, cpu: cpuKind().kind }
  if (options.contextLength !== undefined) out.contextLength = options.contextLength
  if (options.chatTemplate === undefined || options.chatTemplate === false) return out
  out.chatTemplate = options.chatTemplate
  if (options.system !== undefined) out.system = options.system
  if (options.chatTemplateKwargs !== undefined) out.chatTemplateKwargs = options.chatTemplateKwargs
  return out
}
