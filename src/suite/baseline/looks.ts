/**
 * The baseline gate handed to the looks of a run that may stop early: the stored baseline's
 * flags, paired with each scored decision by id and content fingerprint (the pairing of the
 * gate itself, ./file.ts), so the run stops only once the gate is decided too, or on a clear
 * regression (docs/gate.md).
 */
import type { BaselineLooks } from '../../core/thresholds/sequential/paired.ts'
import { cpuKind } from '../../core/support/cpu-kind.ts'
import { decisionFingerprint, readBaseline, type BaselineGateOptions } from './file.ts'

/**
 * The looks' baseline gate of suite `suite`, or `undefined` when there is nothing to pair
 * (no baseline, an unreadable one, another suite's): the gate then fails at the end as it
 * would anyway, and the looks never call it decided.
 */
export async function baselineLooks(suite: string, path: string, gate: BaselineGateOptions): Promise<BaselineLooks | undefined> {
  const stored = await readBaseline(path).catch(() => undefined)
  if (!stored || stored.suite !== suite) return undefined
  const { decisions } = stored
  // On another CPU kind, a near-tie may flip by rounding: left unpaired, as the gate names and does not count it (./file.ts).
  const otherCpu = stored.cpu !== undefined && stored.cpu !== cpuKind().kind
  return {
    alpha: gate.alpha,
    detectableDrop: gate.detectableDrop,
    pair: (record) => {
      // A repeated id is numbered by input position (`~2`, …), which a shuffled look cannot know: left to the end.
      if (!Object.hasOwn(decisions, record.id) || Object.hasOwn(decisions, `${record.id}~2`)) return undefined
      const before = decisions[record.id]!
      if (otherCpu && (before.nearTie || record.nearTie)) return undefined
      return before.fingerprint === decisionFingerprint(record) ? before : undefined
    },
  }
}
