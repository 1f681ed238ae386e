/**
 * Option ids as decision-model criteria keys. A JavaScript object lists integer-like
 * keys (`"1"`, `"2"`) first and ascending, whatever the insertion order, so criteria
 * built from them would show every ordering the same way. Such ids are aliased
 * (`option_1`), the order of every request's criteria is verified, and answers are
 * mapped back to the option ids.
 */
import { ConfigError } from '../../core/support/errors.ts'
import type { Criterion } from '../../core/decisions/schema.ts'

/** What an integer-like id is sent as: `option_<id>`. */
export const ALIAS_PREFIX = 'option_'

/** Whether `key` is an array index, which object key order puts first (ECMAScript OrdinaryOwnPropertyKeys). */
export function isIndexKey(key: string): boolean {
  if (!/^(0|[1-9]\d*)$/.test(key)) return false
  return Number(key) < 2 ** 32 - 1
}

/** One criterion's keys as sent: `sent[i]` for option i (presented order), and the way back. */
export interface SentKeys {
  readonly sent: readonly string[]
  readonly back: ReadonlyMap<string, number>
}

/**
 * The keys to send for a criterion's options in presented order, integer-like ids aliased.
 * A ConfigError when an alias would clash with another option id.
 */
export function sentKeys(criterion: Criterion): SentKeys {
  const ids = criterion.options.map((option) => option.id)
  const sent = ids.map((id) => (isIndexKey(id) ? ALIAS_PREFIX + id : id))
  if (new Set(sent).size !== sent.length)
    throw new ConfigError(
      `criterion "${criterion.key}": option ids ${ids.map((id) => JSON.stringify(id)).join(', ')} cannot be sent in the order requested ` +
        `(integer-like ids are renamed ${ALIAS_PREFIX}<id>, which clashes with another id); rename the options`,
    )
  return { sent, back: new Map(sent.map((key, slot) => [key, slot])) }
}

/** The criteria object for a decision model, verified to list the options in the order requested. */
export function orderedCriteria(criterion: Criterion, keys: SentKeys): Record<string, string> {
  const criteria = Object.fromEntries(criterion.options.map((option, slot) => [keys.sent[slot]!, option.text]))
  const shown = Object.keys(criteria)
  if (shown.length !== keys.sent.length || shown.some((key, slot) => key !== keys.sent[slot]))
    throw new ConfigError(
      `criterion "${criterion.key}": option ids ${criterion.options.map((option) => JSON.stringify(option.id)).join(', ')} would be shown to the model ` +
        `in another order than requested (${shown.map((key) => JSON.stringify(key)).join(', ')}); rename the options`,
    )
  return criteria
}
