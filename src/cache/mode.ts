/** The cache modes and their check: a module without zod, so the CLI's `--help` loads none. */
import { ConfigError } from '../core/support/errors.ts'

/** How a cache is used: read and grow it (default), only read it (CI jobs that must not grow it), or not at all. */
export type CacheMode = 'read-write' | 'read-only' | 'off'
/** Every {@link CacheMode}. */
export const CACHE_MODES: readonly CacheMode[] = ['read-write', 'read-only', 'off']

/** A mode, or a ConfigError naming where it came from. */
export function parseCacheMode(value: string, source: string): CacheMode {
  if (!(CACHE_MODES as readonly string[]).includes(value))
    throw new ConfigError(`${source} must be one of ${CACHE_MODES.join(', ')}, got ${JSON.stringify(value)}`)
  return value as CacheMode
}
