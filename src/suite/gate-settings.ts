/**
 * The baseline gate's settings, checked where they are given (plugin or suite), so a bad
 * `alpha` (must lie in (0, 1)) or `detectableDrop` (in (0, 1]) is a one-line ConfigError
 * when the config or suite is declared, not an error deep inside the gate's test.
 */
import { ConfigError } from '../core/index.ts'

/** `alpha` and `detectableDrop` as a user may give them. */
export interface GateSettings {
  /** Significance level of the paired test, in (0, 1). */
  alpha?: number | undefined
  /** Share of decisions the gate should be able to detect dropping, in (0, 1]. */
  detectableDrop?: number | undefined
}

/** Throw a one-line {@link ConfigError} naming `where` and the setting unless both are in range. */
export function checkGateSettings(where: string, { alpha, detectableDrop }: GateSettings): void {
  if (alpha !== undefined && !(typeof alpha === 'number' && alpha > 0 && alpha < 1))
    throw new ConfigError(`${where}: alpha must be a significance level in (0, 1), got ${String(alpha)}`)
  if (detectableDrop !== undefined && !(typeof detectableDrop === 'number' && detectableDrop > 0 && detectableDrop <= 1))
    throw new ConfigError(`${where}: detectableDrop must be a share of decisions in (0, 1], got ${String(detectableDrop)}`)
}

/** Throw a one-line {@link ConfigError} unless the plugin's `baseline` is absent or a folder path. */
export function checkBaselineFolder(where: string, baseline: unknown): void {
  if (baseline === undefined || (typeof baseline === 'string' && baseline !== '')) return
  throw new ConfigError(
    `${where}: baseline must be the folder of the baselines (a path), got ${JSON.stringify(baseline) ?? String(baseline)}; to turn the gate off for one suite, set baseline: false on that suite`,
  )
}
