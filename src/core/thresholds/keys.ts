/**
 * A threshold names a built-in metric or one of the run's custom metrics; any other name is
 * a misspelling, refused where the thresholds are given with the nearest name (a threshold
 * that gates nothing must never read as a passed gate).
 */
import { ConfigError } from '../support/errors.ts'
import { nearestName } from '../support/options.ts'
import { THRESHOLD_KEYS, THRESHOLD_METRICS } from './metrics.ts'

/** Throw a ConfigError (`${where}unknown threshold "…"; did you mean "…"?`) unless `key` is a built-in or custom metric. */
export function refuseUnknownThreshold(where: string, key: string, customMetrics: readonly string[]): void {
  if (THRESHOLD_METRICS.has(key) || customMetrics.includes(key)) return
  const near = nearestName(key, [...THRESHOLD_KEYS, ...customMetrics])
  throw new ConfigError(
    `${where}unknown threshold "${key}"${near !== undefined ? `; did you mean "${near}"?` : ''} (a threshold names a built-in metric: ${THRESHOLD_KEYS.join(', ')}; or one of the custom \`metrics\`)`,
  )
}
