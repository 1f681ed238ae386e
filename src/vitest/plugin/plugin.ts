/// <reference types="vitest/config" />
/**
 * The Vitest plugin (`vitest-sceptic/plugin`): `sceptic({ baseline })` wires the
 * default include, the matchers' setup file, the sceptic reporter and the baseline
 * directory (docs/vitest-plugin.md#plugin-options; docs/design.md#vitest-mechanics-the-code-relies-on).
 */
import { existsSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
import { configDefaults } from 'vitest/config'
import type { Vitest } from 'vitest/node'
import { parseCacheMode, parseCacheVerify, type CacheOptions } from '../../cache/config.ts'
import { ConfigError } from '../../core/index.ts'
import { atStartup } from './startup-error.ts'
import type { z } from 'zod'
import { refuseUnknownOptions, type SameKeys } from '../../core/support/options.ts'
import { refuseOtherScorerKeys, ScepticPluginOptionsSchema } from './options-schema.ts'
import { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP, type ScepticContext, type SharedModelOptions } from '../../suite/context.ts'
import type {} from '../suite/context.ts'
import { withEvalInclude } from './include.ts'
import { checkSharedModels, checkVitestVersion, installedVitestVersion } from './preflight.ts'
import { isGgufModel } from '../../scorers/gguf/model-file.ts'
import { parseProgress } from '../../suite/progress.ts'
import { withRerunTriggers } from './watch.ts'
import type { SuiteDefaults } from '../../run/settings.ts'
import { suiteDefaultsFrom } from './suite-defaults.ts'
import { checkBaselineFolder, checkGateSettings } from '../../suite/gate-settings.ts'
import { interactiveTerminal } from '../../suite/progress.ts'
import ScepticReporter, { blobRun, type ScepticReporterOptions } from '../reporter/reporter.ts'
import { PLUGIN_NAME, refuseUninheritedProjects } from './projects-check.ts'
import { DecisionShardMerge } from '../shards/merge.ts'
import { withDecisionShards } from '../shards/sequencer.ts'
import { keepOrtTelemetryOff } from '../../scorers/onnx/runtime/ort-telemetry.ts'

/**
 * Options of {@link sceptic}. The suite defaults (`debias`, `average`, `prideFraction`,
 * `statistics`, `chunkSize`, `epochs`, `reducer`, `timeout`, `maxFailureRate`, `stopEarly`) apply to
 * every `describeDecisions` suite that leaves them unset (docs/vitest-plugin.md#suite-defaults-on-the-plugin).
 */
export interface ScepticPluginOptions extends SuiteDefaults {
  /**
   * Directory for baselines, one JSON file per suite (relative to the Vitest root).
   * When unset, there is no baseline gate.
   */
  baseline?: string
  /**
   * Eval file globs, added to the config's `test.include` (or to Vitest's default include
   * when the config sets none), so the project's own tests keep running.
   * Default `['evals/**\/*.eval.{ts,mts,cts,js,mjs,cjs}']`.
   */
  include?: string[]
  /**
   * Add the sceptic reporter (never to a blob run), optionally with its options, e.g.
   * `{ html: 'eval-report.html' }`. Default `true`.
   */
  reporter?: boolean | ScepticReporterOptions
  /** Significance level of the baseline gate. Default 0.05. */
  alpha?: number
  /** The drop in order consistency the baseline gate should be able to detect. Default 0.1 (10 points). */
  detectableDrop?: number
  /**
   * Show scoring progress. Default `'auto'`: only on an interactive terminal and
   * never under CI (or force with `SCEPTIC_PROGRESS=1` / `=0`).
   */
  progress?: boolean | 'auto'
  /**
   * Models to load once per run and share across every eval file: an ONNX model directory or
   * a GGUF file, `{ tiny: 'models/tiny' }`, `{ qwen: { model: 'models/qwen', workers: 2 } }` or
   * `{ q8: { model: 'models/q8.gguf', threads: 1 } }` (paths relative to the Vitest root); an
   * entry takes its own scorer's options. Eval files score with `sharedModel('tiny')`.
   * The models live in Vitest's main process; test workers only send requests.
   */
  models?: Record<string, string | SharedModelOptions>
  /**
   * The score cache for every suite (docs/cache.md): `{ dir, mode, verify }` (`dir` relative to
   * the Vitest root) or `false` (off). Default: `SCEPTIC_CACHE_DIR` / `SCEPTIC_CACHE_MODE`,
   * else read-write in `node_modules/.cache/vitest-sceptic/` of the nearest package.
   */
  cache?: CacheOptions | false
}

true satisfies SameKeys<z.input<typeof ScepticPluginOptionsSchema>, ScepticPluginOptions>

/** Default include of the plugin. */
// Eval files in TypeScript or JavaScript, ESM or CommonJS, as Vitest's own default include allows.
export const DEFAULT_INCLUDE = ['evals/**/*.eval.{ts,mts,cts,js,mjs,cjs}']

/** Pools in which native inference cannot work (docs/design.md#vitest-mechanics-the-code-relies-on). */
const VM_POOLS = new Set(['vmThreads', 'vmForks'])

/**
 * The sceptic Vitest plugin.
 *
 * ```ts
 * export default defineConfig({ plugins: [sceptic({ baseline: 'evals/__baselines__' })] })
 * ```
 */
export function sceptic(options: ScepticPluginOptions = {}): Plugin {
  // `models` entries take their own scorer's keys: a `.gguf` one now, others once the root is known (resolveModels).
  const { models, ...others } = options
  atStartup(() => refuseUnknownOptions(ScepticPluginOptionsSchema, others, 'sceptic() options'))
  atStartup(() => refuseOtherScorerKeys(models, (model) => (/\.gguf$/i.test(model) ? 'gguf' : undefined)))
  // Checked when the config is loaded: a bad default names the option before any test runs.
  const defaults = atStartup(() => suiteDefaultsFrom(options as Readonly<Record<string, unknown>>))
  atStartup(() => checkGateSettings('vitest-sceptic: sceptic()', options))
  atStartup(() => checkBaselineFolder('vitest-sceptic: sceptic()', options.baseline))
  return {
    name: PLUGIN_NAME,
    config: (userConfig) => atStartup(() => {
      const vitestVersion = installedVitestVersion()
      if (vitestVersion !== undefined) checkVitestVersion(vitestVersion)
      const test = (userConfig as { test?: { include?: unknown; pool?: unknown; projects?: unknown } }).test
      refuseVmPool(test?.pool)
      refuseUninheritedProjects(test?.projects)
      // Add to the project's include, never replace it (set in place: returning it would
      // make Vite concatenate the arrays, and an unset include would lose Vitest's default).
      const include = withEvalInclude(includeList(test?.include), options.include ?? DEFAULT_INCLUDE, configDefaults.include)
      const triggers = (test as { forceRerunTriggers?: string[] } | undefined)?.forceRerunTriggers
      const forceRerunTriggers = withRerunTriggers(triggers, options.baseline, configDefaults.forceRerunTriggers)
      ;(userConfig as { test?: Record<string, unknown> }).test = { ...test, include, forceRerunTriggers }
      return undefined
    }),
    configureVitest: ({ vitest, project }) => atStartup(() => {
      refuseVmPool(project.config.pool)
      // Here, in Vitest's main process: test workers (forks and threads) inherit it before any loads ORT.
      keepOrtTelemetryOff()
      const setup = setupFile()
      if (!project.config.setupFiles.includes(setup)) project.config.setupFiles.push(setup)

      const root = project.config.root
      const blob = blobRun(vitest)
      const context: ScepticContext = {
        root,
        baseline: options.baseline === undefined ? null : isAbsolute(options.baseline) ? options.baseline : resolve(root, options.baseline),
        update: vitest.config.snapshotOptions.updateSnapshot,
        progress: !blob && (options.progress === 'auto' || options.progress === undefined ? interactiveTerminal() : options.progress),
        alpha: options.alpha ?? DEFAULT_ALPHA,
        detectableDrop: options.detectableDrop ?? DEFAULT_DETECTABLE_DROP,
        ...(options.models ? { models: resolveModels(options.models, root) } : {}),
        ...(options.cache === undefined ? {} : { cache: resolveCacheOption(options.cache, root) }),
        ...(vitest.config.shard ? { shard: { index: vitest.config.shard.index, count: vitest.config.shard.count } } : {}),
        ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
      }
      // Decision shards (docs/scaling-out.md#vitest-shards-that-split-decisions): files with
      // `shard: 'decisions'` run in every shard; the merge decides their deferred checks.
      if (vitest.config.shard) vitest.config.sequence.sequencer = withDecisionShards(vitest.config.sequence.sequencer)
      if (vitest.config.mergeReports && !vitest.config.reporters.some((r: unknown) => r instanceof DecisionShardMerge))
        vitest.config.reporters.push(new DecisionShardMerge())
      project.provide('sceptic', context)
      // Shared models start in this (main) process, once, from a globalSetup (docs/design.md#vitest-mechanics-the-code-relies-on).
      const modelsSetup = builtFile('./models-setup', './models-setup')
      if (context.models) {
        const current = project.config.globalSetup
        const list = Array.isArray(current) ? current : current ? [current] : []
        if (!list.includes(modelsSetup)) project.config.globalSetup = [...list, modelsSetup]
      }

      // Reporters are created after this hook, so add to the config (docs/design.md#vitest-mechanics-the-code-relies-on):
      // a bare instance, never [instance, options]; not to a blob shard, whose partial
      // report the merged run replaces.
      if (options.reporter !== false && !blob && !hasScepticReporter(vitest)) vitest.config.reporters.push(new ScepticReporter(typeof options.reporter === 'object' ? options.reporter : {}))
      if (context.progress) hideProgressFromOtherReporters(vitest)
    }),
  }
}

/**
 * vm pools run tests in a separate V8 realm: a Float32Array made there fails
 * onnxruntime-node's `instanceof` check, so every native inference call throws
 * (docs/design.md#vitest-mechanics-the-code-relies-on). Refuse early with the reason instead.
 */
function refuseVmPool(pool: unknown): void {
  if (typeof pool === 'string' && VM_POOLS.has(pool))
    throw new ConfigError(
      `vitest-sceptic: pool "${pool}" is not supported. vm pools run tests in a separate V8 realm, so typed arrays ` +
        'created there fail native addons\' instanceof checks and inference (onnxruntime-node) breaks. Use pool "forks" (the default) or "threads".',
    )
}

/** The setup file that registers the matchers. */
function setupFile(): string {
  return builtFile('./setup', '../setup')
}

/** A file of this package by path: the built `.js` beside the built plugin (dist/vitest/), else the source `.ts` (run from source). */
function builtFile(built: string, source: string): string {
  const js = fileURLToPath(new URL(`${built}.js`, import.meta.url))
  if (existsSync(js)) return js
  return fileURLToPath(new URL(`${source}.ts`, import.meta.url))
}

/** The plugin's cache option with an absolute `dir` (a relative one resolves against the Vitest root). */
function resolveCacheOption(cache: CacheOptions | false, root: string): CacheOptions | false {
  if (cache === false) return false
  if (cache.mode !== undefined) parseCacheMode(cache.mode, 'sceptic({ cache: { mode } })')
  if (cache.verify !== undefined) parseCacheVerify(cache.verify, 'sceptic({ cache: { verify } })')
  return { ...cache, ...(cache.dir !== undefined ? { dir: resolve(root, cache.dir) } : {}) }
}

/** Model entries with absolute paths (relative ones resolve against the Vitest root). */
function resolveModels(models: NonNullable<ScepticPluginOptions['models']>, root: string): Record<string, SharedModelOptions> {
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(root, path))
  const resolved: Record<string, SharedModelOptions> = Object.fromEntries(
    Object.entries(models).map(([name, entry]) => {
      const options = typeof entry === 'string' ? { model: entry } : entry
      if (typeof options.model !== 'string' || options.model === '')
        throw new ConfigError(`vitest-sceptic: models.${name} needs a model (an ONNX model directory or a .gguf file)`)
      return [name, { ...options, model: absolute(options.model), ...('prepackCache' in options && typeof options.prepackCache === 'string' ? { prepackCache: absolute(options.prepackCache) } : {}) }]
    }),
  )
  checkSharedModels(resolved, root)
  // Each entry's keys are its own scorer's: a GGUF file's (by name or by content) or an ONNX directory's.
  refuseOtherScorerKeys(resolved, (model) => (isGgufModel(model) ? 'gguf' : 'onnx'))
  return resolved
}

/** The config's include as a list (a single glob string counts as one), or `undefined` when unset. */
function includeList(include: unknown): string[] | undefined {
  if (include === undefined) return undefined
  if (typeof include === 'string') return [include]
  if (Array.isArray(include) && include.every((glob) => typeof glob === 'string')) return include
  throw new ConfigError('vitest-sceptic: test.include must be a list of glob strings')
}

function hasScepticReporter(vitest: Vitest): boolean {
  return vitest.config.reporters.some((entry: unknown) => {
    const value = Array.isArray(entry) ? entry[0] : entry
    return value instanceof ScepticReporter || (typeof value === 'string' && value.includes('vitest-sceptic/reporter'))
  })
}

/** Progress lines are for the sceptic reporter; keep them out of the default reporter's console output. */
function hideProgressFromOtherReporters(vitest: Vitest): void {
  const user = vitest.config.onConsoleLog
  vitest.config.onConsoleLog = (log, type, entity) => {
    if (parseProgress(log)) return false
    return user?.(log, type, entity)
  }
}

export default sceptic
