/** Parsing a subcommand's command line from its option table; every complaint is a one-line UsageError. */
import { parseArgs } from 'node:util'
import type { CacheOptions } from '../cache/config.ts'
import { parseCacheMode } from '../cache/mode.ts'
import { own } from '../core/support/dict.ts'
import { editDistance } from '../core/support/options.ts'
import { UsageError } from './usage-error.ts'
import { appendAll, largest } from '../core/support/spreadless.ts'

/**
 * One option of a command: what `util.parseArgs` needs plus what `--help` prints. Each
 * command declares its options once, in one such table, which the parser, `--help` and
 * "did you mean" all read.
 */
export interface OptionSpec {
  /** `'string'` takes a value, `'boolean'` is a switch. */
  type: 'string' | 'boolean'
  /** One line for `--help`. */
  description: string
  /** Placeholder for the value in `--help`, e.g. `'FILE'`. Default `'VALUE'`. */
  value?: string
  /** Default value, applied by the parser and shown by `--help`. */
  default?: string
  /** One-letter alias, e.g. `'o'` for `-o`. */
  short?: string
  /** May be given several times (the values collect into an array). */
  multiple?: boolean
}

/** A command's options, by long name (without `--`). */
export type OptionTable = Readonly<Record<string, OptionSpec>>

/** `util.parseArgs` with strict checking, whose complaints become one-line {@link UsageError}s. */
export function parse(
  argv: string[],
  options: OptionTable,
  usage: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const config = Object.fromEntries(
    Object.entries(options).map(([name, { type, default: value, short, multiple }]) => [
      name,
      { type, ...(value !== undefined ? { default: value } : {}), ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) },
    ]),
  )
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof config; allowPositionals: true; strict: true; tokens: true }>>
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: true, strict: true, tokens: true })
  } catch (error) {
    const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec((error as Error).message)?.[1]
    if (unknown !== undefined) {
      const given = unknown.replace(/^-+/, '').replace(/=.*$/, '')
      const renamed = own(RENAMED_FLAGS, given)
      if (renamed !== undefined && Object.hasOwn(options, renamed))
        throw new UsageError(`${unknown} is now --${renamed} (every output file is --<what>-out). Usage: sceptic ${usage}`)
      const near = closest(given, Object.keys(options))
      throw new UsageError(`unknown option ${unknown}${near ? `; did you mean --${near}?` : ''} (see: sceptic ${usage.split(' ')[0]} --help)`)
    }
    throw new UsageError(`${(error as Error).message.replace(/\.$/, '')}. Usage: sceptic ${usage}`)
  }
  refuseRepeats(parsed.tokens, options)
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals }
}

/**
 * An option that takes a value may be given once: `--epochs 3 --epochs 5` would silently
 * run with 5 (parseArgs keeps the last), so it is refused. Repeatable options collect
 * every value; a switch given twice is the same as once.
 */
function refuseRepeats(tokens: readonly { kind: string; name?: string }[], options: OptionTable): void {
  const seen = new Set<string>()
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined) continue
    const spec = own(options, token.name)
    if (!spec || spec.type !== 'string' || spec.multiple) continue
    if (seen.has(token.name)) throw new UsageError(`--${token.name} was given more than once; give it once (which value was meant is not clear)`)
    seen.add(token.name)
  }
}

/**
 * Output options renamed to the one convention, every output file or folder is
 * `--<what>-out` (old long name → new): named in the error instead of "unknown option".
 */
export const RENAMED_FLAGS: Readonly<Record<string, string>> = {
  output: 'html-out',
  'out-train': 'train-out',
  'out-eval': 'eval-out',
}

/** Whether the arguments ask for help (`--help` or `-h` anywhere). */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h')
}

/** A command's `--help`: its usage line, summary and every option with its default. */
export function commandHelp(command: { usage: string; summary: string; options: OptionTable }): string {
  const rows = Object.entries(command.options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`
    const extra = [spec.default !== undefined ? `default: ${spec.default}` : '', spec.multiple ? 'repeatable' : ''].filter(Boolean).join('; ')
    return [flag, `${spec.description}${extra ? ` (${extra})` : ''}`] as const
  })
  const width = Math.max(0, largest(rows.map(([flag]) => flag.length))) + 2
  const lines = [`usage: sceptic ${command.usage}`, '', command.summary]
  if (rows.length > 0) appendAll(lines, ['', 'options:', ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`)])
  lines.push(`  ${'-h, --help'.padEnd(width)}print this help`)
  if (Object.values(command.options).some((spec) => spec.type === 'string' && !spec.multiple))
    lines.push('', 'An option that takes a value may be given once (a second one is refused); a repeatable one collects every value.')
  return lines.join('\n') + '\n'
}

/**
 * The known name nearest to `given` (edit distance at most 2, or at most a third of its
 * length for long names), or `undefined` when none is close.
 */
export function closest(given: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const name of known) {
    const d = editDistance(given, name)
    if (d < bestDistance) (best = name), (bestDistance = d)
  }
  return bestDistance <= Math.max(2, Math.floor(given.length / 3)) ? best : undefined
}

/** A flag's text as a number: NaN for an empty or blank one (`Number("")` is 0, which would pass any range check). */
export function flagNumber(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value)
}

/** An integer option in [`min`, `max`], or a UsageError naming it (and the bound it broke). */
export function integer(value: string | undefined, name: string, min = 0, max?: number): number | undefined {
  if (value === undefined) return undefined
  const n = flagNumber(value)
  // A safe integer: past 2^53 a count is not a count (1e300 is an integer to JavaScript).
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max))
    throw new UsageError(`--${name} must be an integer ≥ ${min}${max === undefined ? '' : ` and ≤ ${max}`}, got "${value}"`)
  return n
}

/** The score-cache flags of `evaluate` (docs/cache.md). */
export const CACHE_FLAGS = {
  cache: { type: 'string', value: 'DIR', description: 'score cache directory (default SCEPTIC_CACHE_DIR, else node_modules/.cache/vitest-sceptic/)' },
  'no-cache': { type: 'boolean', description: 'neither read nor write the score cache' },
  'cache-mode': { type: 'string', value: 'MODE', description: 'score cache mode: read-write (default), read-only, off' },
  'cache-verify': { type: 'string', value: 'N', description: "a remote scorer's cache hits re-scored live per run; a difference fails the run (default SCEPTIC_CACHE_VERIFY, else 8; 0 opts out)" },
} as const satisfies OptionTable

/** `--cache DIR`, `--no-cache`, `--cache-mode MODE`, `--cache-verify N` as the cache option (`undefined` parts fall back to the environment). */
export function cacheFromFlags(values: Record<string, string | boolean | undefined>): CacheOptions | false {
  const dir = values.cache as string | undefined
  const mode = values['cache-mode'] as string | undefined
  const verify = integer(values['cache-verify'] as string | undefined, 'cache-verify')
  if (values['no-cache'] === true) {
    if (dir !== undefined || (mode !== undefined && mode !== 'off')) throw new UsageError('--no-cache cannot be combined with --cache or --cache-mode')
    return false
  }
  return {
    ...(dir !== undefined ? { dir } : {}),
    ...(mode !== undefined ? { mode: parseCacheMode(mode, '--cache-mode') } : {}),
    ...(verify !== undefined ? { verify } : {}),
  }
}
