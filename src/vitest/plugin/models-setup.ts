/**
 * The plugin's globalSetup for shared models: runs once in Vitest's main process,
 * starts one ONNX pool (or GGUF scorer, for a .gguf file) per configured model, provides their URLs to every test file,
 * and returns a teardown that drains and closes them (a leaked pool would hold
 * Vitest's exit for `teardownTimeout`;
 * docs/design.md#vitest-mechanics-the-code-relies-on).
 */
import { relative } from 'node:path'
import type { TestProject } from 'vitest/node'
import { isGgufModel } from '../../scorers/gguf/model-file.ts'
import type { OnnxScorer, OnnxScorerOptions } from '../../scorers/onnx/options.ts'
import type { SharedModelUrls } from '../models/client.ts'
// Brings in the `sceptic` key of Vitest's ProvidedContext (declared beside the suite's reader).
import type {} from '../suite/context.ts'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const models = project.getProvidedContext().sceptic?.models ?? {}
  const names = Object.keys(models)
  if (names.length === 0) {
    project.provide('scepticModels', {})
    return async () => {}
  }
  const { startScorerServer } = await import('../../scorers/onnx/runtime/pool-server.ts')
  const servers: { close(): Promise<void> }[] = []
  const urls: SharedModelUrls = {}
  try {
    for (const name of names) {
      const server = await startScorerServer(models[name]!, isGgufModel(models[name]!.model) ? await ggufFactory() : undefined)
      servers.push(server)
      // The report shows the model path as the user wrote it (relative to the root), not
      // this machine's absolute path: reports and baselines get compared across machines.
      const model = models[name]!.model
      const shown = relative(project.config.root, model) || '.'
      urls[name] = {
        url: server.url,
        description: server.description.split(model).join(shown),
        // The served scorer's own identity: one home for what keys an ONNX scorer.
        cacheIdentity: server.scorer.cacheIdentity,
        // Everything the served scorer's manifest holds once it started (ONNX's readout, GGUF's llama.cpp build); its counters are each file's own (client.ts).
        manifest: { ...server.scorer.manifestEntries() },
      }
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()))
    throw error
  }
  project.provide('scepticModels', urls)
  return async () => {
    await Promise.all(servers.map((server) => server.close()))
  }
}

/** The GGUF scorer as the server's factory: it serves the same calls and lifecycle as an ONNX scorer. */
async function ggufFactory(): Promise<(options: OnnxScorerOptions) => OnnxScorer> {
  const { ggufScorer } = await import('../../scorers/gguf/scorer.ts')
  return (options) => ggufScorer(options as Parameters<typeof ggufScorer>[0]) as unknown as OnnxScorer
}
