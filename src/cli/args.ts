import { parseArgs, type ParseArgsConfig } from 'node:util'
import { parseCacheMode, type CacheOptions } from '../cache/config.ts'
import { UsageError } from './command.ts'

/** `util.parseArgs` with strict checking, whose complaints become one-line {@link UsageError}s. */
export function parse(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  usage: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as never
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\.$/, '')}. Usage: sceptic ${usage}`)
  }
}

/** A non-negative integer option, or a UsageError naming it. */
export function integer(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`)
  return n
}

/** The score-cache flags of `evaluate` (docs/cache.md). */
export const CACHE_FLAGS = {
  cache: { type: 'string' },
  'no-cache': { type: 'boolean' },
  'cache-mode': { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>

/** `--cache DIR`, `--no-cache`, `--cache-mode MODE` as the cache option (`undefined` parts fall back to the environment). */
export function cacheFromFlags(values: Record<string, string | boolean | undefined>): CacheOptions | false {
  const dir = values.cache as string | undefined
  const mode = values['cache-mode'] as string | undefined
  if (values['no-cache'] === true) {
    if (dir !== undefined || (mode !== undefined && mode !== 'off')) throw new UsageError('--no-cache cannot be combined with --cache or --cache-mode')
    return false
  }
  return {
    ...(dir !== undefined ? { dir } : {}),
    ...(mode !== undefined ? { mode: parseCacheMode(mode, '--cache-mode') } : {}),
  }
}
