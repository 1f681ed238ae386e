/**
 * Put the cache in front of a scorer when it can be cached: one entry point for the
 * CLI, `describeDecisions` and library users.
 */
import type { FallibleScoreFn, ScoreFn } from '../core/scorer/contract.ts'
import { ownDescription } from '../core/scorer/description.ts'
import { cachedScorer } from './cached-scorer.ts'
import { resolveCache, type CacheOptions } from './config.ts'
import type { CacheIdentity } from './key.ts'
import { CacheStore } from './store.ts'

/** Stores opened by this process, per directory and mode: suites in one worker share the loaded entries. */
const opened = new Map<string, CacheStore>()

/**
 * The scorer's cache identity: its `cacheIdentity` (this package's ONNX and HTTP
 * scorers), or for any other function a string `cacheKey` it carries (the user's
 * promise that equal keys mean equal outputs). `undefined`: not cacheable.
 */
export function cacheIdentityOf(score: unknown, label?: string): CacheIdentity | undefined {
  const fn = score as { cacheIdentity?: unknown; cacheKey?: unknown; name?: unknown } | undefined
  const identity = fn?.cacheIdentity as CacheIdentity | undefined
  if (identity && typeof identity === 'object' && typeof identity.kind === 'string' && typeof identity.label === 'string') return identity
  if (typeof fn?.cacheKey === 'string' && fn.cacheKey !== '')
    return { kind: 'user', label: label ?? ownDescription(fn) ?? String(fn.name || 'ScoreFn'), settings: { cacheKey: fn.cacheKey } }
  return undefined
}

/** Options of {@link withCache}. */
export interface WithCacheOptions {
  /** Where and how (resolved against the environment); `false` turns the cache off. */
  readonly cache?: CacheOptions | false | undefined
  /** Identity to use instead of {@link cacheIdentityOf}. */
  readonly identity?: CacheIdentity | undefined
  /** Where one-line cache warnings go. Default `console.warn`. */
  readonly onWarning?: (message: string) => void
  /** Directory relative cache paths resolve against. Default `process.cwd()`. */
  readonly cwd?: string
}

/** `score` behind the cache, or `score` itself when the cache is off or the scorer has no identity. */
export function withCache<S extends ScoreFn | FallibleScoreFn>(score: S, options: WithCacheOptions = {}): S | FallibleScoreFn {
  const resolved = resolveCache(options.cache, options.cwd !== undefined ? { cwd: options.cwd } : {})
  const identity = options.identity ?? cacheIdentityOf(score)
  if (resolved.mode === 'off' || !identity) return score
  const name = `${resolved.mode}\0${resolved.dir}`
  let store = opened.get(name)
  if (!store) {
    store = new CacheStore(resolved.dir, { mode: resolved.mode, ...(options.onWarning ? { onWarning: options.onWarning } : {}) })
    opened.set(name, store)
  }
  return cachedScorer(score as FallibleScoreFn, { identity, store, verify: resolved.verify })
}
