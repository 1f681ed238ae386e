import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './commands.ts'

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
