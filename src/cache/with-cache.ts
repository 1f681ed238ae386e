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
 * The scorer's cache identity: its `cacheIdentity` (this package's ONNX, HTTP and decision
 * scorers), with a string `cacheKey` it carries added (the user's promise that equal keys
 * mean equal outputs), or the `cacheKey` alone for any other function. `undefined`: not cacheable.
 */
export function cacheIdentityOf(score: unknown, label?: string): CacheIdentity | undefined {
  const fn = score as { cacheIdentity?: unknown; cacheKey?: unknown; name?: unknown } | undefined
  const candidate = fn?.cacheIdentity as CacheIdentity | undefined
  const identity = candidate && typeof candidate === 'object' && typeof candidate.kind === 'string' && typeof candidate.label === 'string' ? candidate : undefined
  const key = typeof fn?.cacheKey === 'string' && fn.cacheKey !== '' ? fn.cacheKey : undefined
  return key === undefined ? identity : withUserKey(identity, key, label ?? ownDescription(fn) ?? String(fn!.name || 'ScoreFn'))
}

/**
 * A user's `cacheKey` on top of a scorer's own identity: it joins the key, and never removes
 * what the scorer's identity holds (its settings, files, and that a remote scorer's hits are
 * re-checked live). Without an identity of the scorer's own, the key alone, as a `user` scorer.
 */
export function withUserKey(identity: CacheIdentity | undefined, cacheKey: string, label: string): CacheIdentity {
  if (identity === undefined || identity.kind === 'user') return { kind: 'user', label, settings: { cacheKey } }
  return { ...identity, settings: { scorer: identity.settings ?? null, cacheKey } }
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
