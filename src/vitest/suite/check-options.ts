/**
 * The definition-time checks of `describeDecisions`, runner-neutral (the Vitest and the Jest
 * face both call them): mistakes a user should see before anything is scored. A key that
 * is not an option is refused, naming it.
 */
import { DESCRIBE_DECISIONS_RENAMES, refuseRenamedOptions } from '../../core/evaluate/renamed-options.ts'
import { ConfigError } from '../../core/index.ts'
import { THRESHOLD_METRICS } from '../../core/thresholds/metrics.ts'
import { assertThreshold } from '../../core/thresholds/verdict.ts'
import { parseRunSettings, type RunSettings } from '../../run/settings.ts'
import { THRESHOLD_KEYS } from '../meta.ts'
import { checkGateSettings } from '../plugin/gate-settings.ts'
import type { DescribeDecisionsOptions, ScorerHandle } from './options.ts'

/** Every option of `describeDecisions` (both faces): anything else is refused. */
export const DESCRIBE_DECISIONS_KEYS = [
  'data', 'scorer', 'debias', 'thresholds', 'timeout', 'seed', 'baseline', 'alpha', 'detectableDrop', 'scorerDescription', 'manifest',
  'chunkSize', 'template', 'skip', 'closeScorer', 'epochs', 'reducer', 'average', 'prideFraction', 'statistics', 'metrics',
  'maxFailureRate', 'storePrompts', 'cache', 'shard', 'stopEarly',
] as const satisfies readonly (keyof DescribeDecisionsOptions)[]
// The list names every option: adding one to the interface without listing it fails to compile.
type Unlisted = Exclude<keyof DescribeDecisionsOptions, (typeof DESCRIBE_DECISIONS_KEYS)[number]>
const everyOptionListed: [Unlisted] extends [never] ? true : Unlisted = true
void everyOptionListed

/** A ConfigError naming the first key of `options` that is not an option (a renamed one says its new name). */
function refuseUnknownKeys(name: string, options: object): void {
  refuseRenamedOptions(`describeDecisions("${name}")`, options, DESCRIBE_DECISIONS_RENAMES)
  const known: readonly string[] = DESCRIBE_DECISIONS_KEYS
  const unknown = Object.keys(options).find((key) => !known.includes(key))
  if (unknown !== undefined) throw new ConfigError(`describeDecisions("${name}"): unknown option \`${unknown}\`; the options are ${known.join(', ')}`)
}

/** Definition-time checks: mistakes a user should see before anything is scored. Returns the run settings. */
export function checkOptions(name: string, options: DescribeDecisionsOptions): RunSettings {
  const where = `describeDecisions("${name}"): `
  if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('describeDecisions needs a suite name')
  if (!options || (typeof options.data !== 'string' && !Array.isArray(options.data))) throw new ConfigError(`${where}\`data\` must be a JSONL path or an array of decisions`)
  refuseUnknownKeys(name, options)
  const scorer = options.scorer
  if (typeof scorer !== 'function' && typeof (scorer as ScorerHandle | undefined)?.score !== 'function')
    throw new ConfigError(`${where}\`scorer\` must be a ScoreFn or an object with a \`score\` function`)
  const settings = parseRunSettings(options as unknown as Readonly<Record<string, unknown>>, { where })
  checkThresholdOptions(where, options, settings)
  if (options.shard !== undefined && options.shard !== 'decisions') throw new ConfigError(`${where}shard must be 'decisions' or unset, got ${JSON.stringify(options.shard)}`)
  if (options.shard === 'decisions' && options.metrics !== undefined)
    throw new ConfigError(`${where}shard: 'decisions' cannot be combined with custom \`metrics\` (functions cannot travel to the merged run)`)
  if (options.shard === 'decisions' && settings.debias === 'pride')
    throw new ConfigError(`${where}shard: 'decisions' cannot be used with debias "pride" (its prior is estimated from a sample of the whole set); use "cyclic"`)
  if (options.shard === 'decisions' && settings.stopEarly)
    throw new ConfigError(`${where}shard: 'decisions' cannot be combined with stopEarly (a shard that stops on its own part would not merge into the full set's verdict); use one or the other`)
  checkGateSettings(`describeDecisions("${name}")`, options)
  return settings
}

/** Each threshold names a built-in metric within its range or one of the suite's `metrics`. */
function checkThresholdOptions(where: string, options: DescribeDecisionsOptions, settings: RunSettings): void {
  for (const [key, threshold] of Object.entries(options.thresholds ?? {})) {
    const custom = options.metrics !== undefined && Object.hasOwn(options.metrics, key)
    const builtin = THRESHOLD_METRICS.get(key)
    if (!custom && !builtin) throw new ConfigError(`${where}unknown threshold "${key}"; use ${THRESHOLD_KEYS.join(', ')}, or the name of one of the suite's \`metrics\``)
    assertThreshold(where.slice(0, -2), key, threshold, custom ? undefined : builtin!.range)
    if (builtin?.needsOrderings && settings.debias === 'none')
      throw new ConfigError(`${where}a ${key} threshold needs more than one ordering, but debias is "none"; use "cyclic"`)
  }
}

