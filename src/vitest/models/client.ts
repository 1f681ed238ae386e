/**
 * One model, loaded once per run (docs/vitest-plugin.md#shared-models). The plugin's `models`
 * option names model directories; a globalSetup in Vitest's main process starts one
 * shared ONNX pool per model and provides its URL; eval files in any worker reach it
 * with {@link sharedModel}. Five eval files on one model mean one copy of the
 * weights, not five.
 */
import { inject } from 'vitest'
import type { CacheIdentity } from '../../cache/key.ts'
import { ConfigError } from '../../core/support/errors.ts'
import type { FallibleScoreFn, ScoreContext, ScoreRequest } from '../../core/scorer/contract.ts'
import type { RemoteScorer } from '../../scorers/onnx/runtime/pool-server.ts'

/** Per model name, the URL of its shared pool (provided by the models globalSetup). */
export type SharedModelUrls = Record<string, { url: string; description: string; cacheIdentity?: CacheIdentity; manifest?: Record<string, unknown> }>

declare module 'vitest' {
  interface ProvidedContext {
    /** Provided by the `sceptic()` plugin's models globalSetup. */
    scepticModels: SharedModelUrls
  }
}

/** A scorer backed by a shared pool (a prompt over the model's context comes back as a `too_long` failure), with the `description`/`close` shape of the local ONNX scorer. */
export type SharedModelScorer = FallibleScoreFn & {
  /** The pool's description (`onnx DIR (2 workers × 1 thread, batch ≤ 4)`), for the report. */
  readonly description: string
  /** Release this file's connections; the pool keeps running for other files. */
  close(): Promise<void>
  /** The shared model's identity for the score cache (docs/cache.md). */
  readonly cacheIdentity: CacheIdentity | undefined
  /**
   * What the run's manifest records of the shared model, as the local scorer's would: the served
   * scorer's entries once it started (an ONNX pool's `readout`, `prepacked`; a GGUF scorer's
   * llama.cpp build and KV cache type), with its counters (a GGUF scorer's `tokensEvaluated`,
   * `minimumTokens`) counted over this file's calls only.
   */
  manifestEntries(): Record<string, unknown>
}

/**
 * The scorer for a model configured in the plugin: `sceptic({ models: { tiny:
 * 'models/tiny' } })`, then `scorer: sharedModel('tiny')` in any eval file. The
 * pool runs in Vitest's main process; this returns a small HTTP client.
 */
export function sharedModel(name: string): SharedModelScorer {
  let urls: SharedModelUrls | undefined
  try {
    urls = inject('scepticModels')
  } catch {
    urls = undefined
  }
  const entry = urls?.[name]
  if (!entry) {
    const known = Object.keys(urls ?? {})
    throw new ConfigError(
      `sharedModel("${name}"): no such model. ` +
        (known.length > 0
          ? `The plugin configures: ${known.join(', ')}.`
          : `Add it to the plugin: sceptic({ models: { ${JSON.stringify(name)}: 'path/to/model-dir' } }) in vitest.config.ts.`),
    )
  }
  // The client (and the onnx chunk it lives in) loads on first use only.
  let client: Promise<RemoteScorer> | undefined
  let connected: RemoteScorer | undefined
  const connect = () =>
    (client ??= import('../../scorers/onnx/runtime/pool-server.ts').then((m) => (connected = m.connectScorer(entry.url, { description: entry.description }))))
  const score = async (requests: readonly ScoreRequest[], context?: ScoreContext) => (await connect())(requests, context)
  return Object.assign(score, {
    description: entry.description,
    cacheIdentity: entry.cacheIdentity,
    // The pool started before any file ran, so what its head computes is known already; counters start at 0 for this file.
    manifestEntries: () => {
      const zeros = Object.fromEntries(Object.entries(entry.manifest ?? {}).flatMap(([key, value]) => (typeof value === 'number' ? [[key, 0]] : [])))
      return { ...entry.manifest, ...zeros, ...(connected?.counters() ?? {}) }
    },
    close: async () => {
      if (client) await (await client).close()
    },
  })
}
