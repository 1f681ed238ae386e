/**
 * Checks the plugin runs at load, so a setup mistake is one clear line before any test
 * file is collected (instead of "No test files found" or a crash deep in a worker).
 */
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { relative } from 'node:path'
import { isGgufModel } from '../../scorers/gguf/model-file.ts'
import { ConfigError } from '../../core/index.ts'

/** The Vitest versions this package supports: `>=4.1.4 <6` (the peer range). */
export const SUPPORTED_VITEST = { min: [4, 1, 4], below: [6, 0, 0] } as const

/**
 * Throws a one-line {@link ConfigError} when `version` is outside {@link SUPPORTED_VITEST},
 * saying what to install. Pre-release tags are ignored (`5.0.0-beta.1` counts as 5.0.0).
 */
export function checkVitestVersion(version: string): void {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number)
  if (!parts) throw new ConfigError(`vitest-sceptic: cannot read the installed Vitest version "${version}"`)
  const compare = (a: readonly number[], b: readonly number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!
  if (compare(parts, SUPPORTED_VITEST.min) >= 0 && compare(parts, SUPPORTED_VITEST.below) < 0) return
  throw new ConfigError(
    `vitest-sceptic needs Vitest >=4.1.4 <6, but Vitest ${version} is installed: run \`npm i -D vitest@5\` (Node >= 22.12) or \`npm i -D vitest@4.1\` (Node >= 20.19)`,
  )
}

/** The version of the `vitest` this module resolves, or `undefined` when it cannot be read. */
export function installedVitestVersion(): string | undefined {
  try {
    return (createRequire(import.meta.url)('vitest/package.json') as { version?: string }).version
  } catch {
    return undefined
  }
}

/**
 * Throws a one-line {@link ConfigError} when a shared model's directory does not exist or
 * onnxruntime-node cannot be resolved where this package imports it (the models need it in
 * Vitest's process).
 *
 * @param models - model directories by name, absolute
 * @param root - the Vitest root, for messages
 * @param resolveFrom - where onnxruntime-node is resolved from; default this module (as the pool does)
 */
export function checkSharedModels(models: Readonly<Record<string, { model: string }>>, root: string, resolveFrom: string = import.meta.url): void {
  for (const [name, { model }] of Object.entries(models)) {
    const shown = relative(root, model) || '.'
    if (!existsSync(model)) throw new ConfigError(`vitest-sceptic: models.${name}: no model directory at ${shown} (relative paths resolve against the Vitest root ${root})`)
    // A GGUF file is a model of its own (the GGUF scorer checks it and node-llama-cpp when it starts).
    if (isGgufModel(model)) continue
    if (!statSync(model).isDirectory()) throw new ConfigError(`vitest-sceptic: models.${name}: ${shown} is a file; give the model directory (with onnx/ and tokenizer.json), or a .gguf file`)
  }
  if (Object.values(models).every(({ model }) => isGgufModel(model))) return
  try {
    createRequire(resolveFrom).resolve('onnxruntime-node')
  } catch {
    throw new ConfigError(
      'vitest-sceptic: the plugin\'s `models` need onnxruntime-node, which is not installed: run `ONNXRUNTIME_NODE_INSTALL=skip npm i -D onnxruntime-node@1.30` (the env var stops its install script downloading CUDA files)',
    )
  }
}
