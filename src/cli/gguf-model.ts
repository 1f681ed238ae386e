/**
 * `--model FILE.gguf`: the GGUF scorer (vitest-sceptic/gguf), loaded only when asked for
 * (node-llama-cpp is optional). A model path that is a file, or ends in `.gguf`, is a
 * GGUF model; an ONNX model is a directory.
 */
import { builtEntry } from './built-entry.ts'
import type { ScoreFn } from '../core/scorer/contract.ts'
import { withScorerManifest } from '../core/scorer/live-manifest.ts'
import { ConfigError, DataError } from '../core/support/errors.ts'
import { isGgufModel } from '../scorers/gguf/model-file.ts'
import { refuseOtherFormatFlags, type ModelFlagOptions } from './model-flags.ts'

export { isGgufModel }

/** The part of `vitest-sceptic/gguf` the CLI uses. */
interface GgufModule {
  ggufScorer(options: { model: string } & Omit<ModelFlagOptions, 'dtype' | 'prepackCache'>): ScoreFn & {
    close(): Promise<void>
    ready(): Promise<unknown>
    readonly description: string
    readonly settings: { sequences: number; threads: number; kvCacheType: string; flashAttention: boolean }
  }
}

/** Load the GGUF scorer for `path` and start it, so a bad file fails before any scoring, in one line. */
export async function loadGgufModel(
  path: string,
  options: { batchSize?: number | undefined; workers?: number | undefined } & ModelFlagOptions,
): Promise<{ score: ScoreFn; description: string; manifest: Record<string, unknown>; close?: () => unknown }> {
  refuseOtherFormatFlags('gguf', path, options)
  const entry = builtEntry('gguf/index.js')
  const gguf: GgufModule = await import(entry).catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof DataError) throw error
    throw new ConfigError(`--model needs the GGUF scorer, which failed to load: ${(error as Error).message.split('\n')[0]}`)
  })
  const chat = {
    ...(options.chatTemplate ? { chatTemplate: options.chatTemplate } : {}),
    ...(options.system !== undefined ? { system: options.system } : {}),
    ...(options.chatTemplateKwargs !== undefined ? { chatTemplateKwargs: options.chatTemplateKwargs } : {}),
  }
  const scorer = gguf.ggufScorer({
    model: path,
    ...chat,
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
    ...(options.sequences !== undefined ? { sequences: options.sequences } : {}),
  })
  try {
    await scorer.ready()
  } catch (error) {
    await scorer.close()
    throw error
  }
  const { sequences, threads, kvCacheType, flashAttention } = scorer.settings
  return {
    score: scorer as ScoreFn,
    description: scorer.description,
    manifest: withScorerManifest({ model: path, format: 'gguf', sequences, threads, kvCacheType, flashAttention, ...chat }, scorer),
    close: () => scorer.close(),
  }
}
