/**
 * Options that were renamed, refused with the new name instead of silently ignored: a
 * JavaScript caller passing the old name would otherwise lose what it set (a scorer's
 * description, which the baseline gate compares) without a word.
 */
import { ConfigError } from '../support/errors.ts'

/** Old option name → the one name it now has. */
export type Renames = Readonly<Record<string, string>>

/** `evaluateWithScorer`: the scorer's description was the string option `scorer`. */
export const EVALUATE_RENAMES: Renames = { scorer: 'scorerDescription' }

/** `describeDecisions`: the scorer's description was `scorerName`. */
export const DESCRIBE_DECISIONS_RENAMES: Renames = { scorerName: 'scorerDescription' }

/** Throw a {@link ConfigError} naming the first renamed option present (not `undefined`) in `options`. */
export function refuseRenamedOptions(where: string, options: object, renames: Renames): void {
  for (const [old, now] of Object.entries(renames)) {
    const value: unknown = Object.hasOwn(options, old) ? (options as Record<string, unknown>)[old] : undefined
    if (value === undefined) continue
    throw new ConfigError(`${where}: the option \`${old}\` is now \`${now}\`; rename it`)
  }
}
