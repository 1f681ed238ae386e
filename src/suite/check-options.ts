/**
 * The definition-time checks of `describeDecisions`, runner-neutral (the Vitest and the Jest
 * face both call them): mistakes a user should see before anything is scored. A key that
 * is not an option is refused, naming it and the nearest option.
 */
import { DESCRIBE_DECISIONS_RENAMES, refuseRenamedOptions } from '../core/evaluate/renamed-options.ts'
import { ConfigError } from '../core/index.ts'
import { THRESHOLD_METRICS } from '../core/thresholds/metrics.ts'
import { assertThreshold } from '../core/thresholds/verdict.ts'
import { parseRunSettings, type RunSettings } from '../run/settings.ts'
import { checkGateSettings } from './gate-settings.ts'
import { DescribeDecisionsOptionsSchema, type DescribeDecisionsOptions, type ScorerHandle } from './options.ts'
import { refuseUnknownOptions } from '../core/support/options.ts'
import { refuseUnknownThreshold } from '../core/thresholds/keys.ts'

/** Definition-time checks: mistakes a user should see before anything is scored. Returns the run settings. */
export function checkOptions(name: string, options: DescribeDecisionsOptions): RunSettings {
  const where = `describeDecisions("${name}"): `
  if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('describeDecisions needs a suite name')
  if (options !== null && typeof options === 'object') {
    refuseRenamedOptions(`describeDecisions("${name}")`, options, DESCRIBE_DECISIONS_RENAMES)
    refuseUnknownOptions(DescribeDecisionsOptionsSchema, options, `describeDecisions("${name}") options`)
  }
  if (!options || (typeof options.data !== 'string' && !Array.isArray(options.data))) throw new ConfigError(`${where}\`data\` must be a JSONL path or an array of decisions`)
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
    refuseUnknownThreshold(where, key, Object.keys(options.metrics ?? {}))
    assertThreshold(where.slice(0, -2), key, threshold, custom ? undefined : builtin!.range)
    if (builtin?.needsOrderings && settings.debias === 'none')
      throw new ConfigError(`${where}a ${key} threshold needs more than one ordering, but debias is "none"; use "cyclic"`)
  }
}

