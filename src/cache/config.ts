/**
 * Where the score cache lives and how it is used (docs/cache.md, "Where and how"):
 * an explicit option wins, then `SCEPTIC_CACHE_DIR` / `SCEPTIC_CACHE_MODE`, then the
 * default, `node_modules/.cache/vitest-sceptic/` of the nearest package (the
 * convention of Vite, Babel and find-cache-dir), read-write.
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { z } from 'zod'
import { ConfigError } from '../core/support/errors.ts'
import { refuseUnknownOptions, type SameKeys } from '../core/support/options.ts'
import { listSegments } from './layout.ts'
import { CACHE_MODES, parseCacheMode, type CacheMode } from './mode.ts'

export { parseCacheMode } from './mode.ts'

/** The `cache` option of `describeDecisions`, the plugin and the library. */
export interface CacheOptions {
  /** Cache directory (absolute, or relative to `cwd`). Default: `SCEPTIC_CACHE_DIR`, else `node_modules/.cache/vitest-sceptic/` of the nearest package. */
  readonly dir?: string
  /** `read-write` (default), `read-only` (serve, never grow) or `off`. Default: `SCEPTIC_CACHE_MODE`, else `read-write`. */
  readonly mode?: CacheMode
  /**
   * Cache hits of a remote scorer (`openAIScorer`) re-scored live per run and compared with
   * the cached vectors; a difference fails the run (docs/cache.md, "Remote scorers"). An
   * integer ≥ 0; `0` opts out. Default: `SCEPTIC_CACHE_VERIFY`, else {@link DEFAULT_CACHE_VERIFY}.
   */
  readonly verify?: number
}

/** Most remote-scorer hits re-checked live per run. */
export const MAX_CACHE_VERIFY = 1_000_000

/** The keys of {@link CacheOptions}: a misspelled one (`dirr`) is refused where it is given. */
export const CacheOptionsSchema = z.strictObject({ dir: z.string().optional(), mode: z.enum(CACHE_MODES as [CacheMode, ...CacheMode[]]).optional(), verify: z.number().int().min(0).max(MAX_CACHE_VERIFY).optional() })
true satisfies SameKeys<z.input<typeof CacheOptionsSchema>, CacheOptions>

/** Default {@link CacheOptions.verify}: hits of a remote scorer re-checked live per run. */
export const DEFAULT_CACHE_VERIFY = 8

/** A resolved cache setting. */
export interface ResolvedCache {
  /** Absolute cache directory. */
  readonly dir: string
  /** How it is used. */
  readonly mode: CacheMode
  /** Remote-scorer hits to re-check live per run (≥ 0). */
  readonly verify: number
}

/** Name of the environment variable that sets the cache directory. */
export const CACHE_DIR_ENV = 'SCEPTIC_CACHE_DIR'
/** Name of the environment variable that sets the cache mode. */
export const CACHE_MODE_ENV = 'SCEPTIC_CACHE_MODE'
/** Name of the environment variable that sets how many remote-scorer hits are re-checked live. */
export const CACHE_VERIFY_ENV = 'SCEPTIC_CACHE_VERIFY'

/** A verify count (an integer ≥ 0), or a ConfigError naming where it came from. */
export function parseCacheVerify(value: unknown, source: string): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value
  if (typeof n !== 'number' || !CacheOptionsSchema.shape.verify.safeParse(n).success)
    throw new ConfigError(`${source} must be an integer ≥ 0 and ≤ ${MAX_CACHE_VERIFY} (hits re-checked live; 0 opts out), got ${JSON.stringify(value)}`)
  return n
}

/** The default cache directory: `node_modules/.cache/vitest-sceptic` under the nearest folder (from `cwd` up) with a package.json, else under `cwd`. */
export function defaultCacheDir(cwd: string): string {
  let folder = resolve(cwd)
  for (;;) {
    if (existsSync(join(folder, 'package.json'))) return join(folder, 'node_modules', '.cache', 'vitest-sceptic')
    const parent = dirname(folder)
    if (parent === folder) return join(resolve(cwd), 'node_modules', '.cache', 'vitest-sceptic')
    folder = parent
  }
}

/** Resolve options against the environment. `false` is the same as `{ mode: 'off' }`. */
export function resolveCache(
  options: CacheOptions | false | undefined,
  context: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ResolvedCache {
  refuseUnknownOptions(CacheOptionsSchema, options, 'cache options')
  const cwd = context.cwd ?? process.cwd()
  const env = context.env ?? process.env
  const given = options === false ? { mode: 'off' as const } : (options ?? {})
  const envMode = env[CACHE_MODE_ENV]
  const mode = given.mode !== undefined ? parseCacheMode(given.mode, 'cache.mode') : envMode ? parseCacheMode(envMode, CACHE_MODE_ENV) : 'read-write'
  const envDir = env[CACHE_DIR_ENV]
  const dir = given.dir !== undefined ? resolve(cwd, given.dir) : envDir ? resolve(cwd, envDir) : defaultCacheDir(cwd)
  const envVerify = env[CACHE_VERIFY_ENV]
  const verify =
    given.verify !== undefined ? parseCacheVerify(given.verify, 'cache.verify') : envVerify ? parseCacheVerify(envVerify, CACHE_VERIFY_ENV) : DEFAULT_CACHE_VERIFY
  return { dir, mode, verify }
}

/** Whether the cache these options resolve to could serve a hit: it is read (mode not off) and holds at least one segment. */
export function cacheMayServe(options: CacheOptions | false | undefined, context: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): boolean {
  const { dir, mode } = resolveCache(options, context)
  return mode !== 'off' && listSegments(dir).length > 0
}
