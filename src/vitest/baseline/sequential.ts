/**
 * The baseline gate of a run that stopped early: the sequential McNemar e-value on the
 * discordant pairs of the decisions scored (anytime-valid, so valid at the stop), instead
 * of the fixed-sample exact test, whose level holds only for a sample fixed in advance.
 */
import { mcnemarEValue } from '../../core/math/sequential-mcnemar.ts'
import type { StopEarlyResult } from '../../core/result/stop-early.ts'
import { compareWithBaseline, pairDecisions, pairedOutcome, type BaselineFile, type BaselineGateOptions, type BaselineOutcome } from './file.ts'
import { percent } from '../assertions/format.ts'

/** Compare the scored part of a stopped run with the baseline, at the gate's `alpha`. */
export function compareSequentially(baseline: BaselineFile, current: BaselineFile, gate: BaselineGateOptions, stop: StopEarlyResult): Omit<BaselineOutcome, 'file'> {
  const pairs = pairDecisions(baseline, current)
  // A changed setup or nothing paired fails as in a full run.
  if (baseline.debias !== current.debias || baseline.scorer !== current.scorer || pairs.paired === 0) return compareWithBaseline(baseline, current, gate)
  const { worse, better, strictWorse, strictBetter, paired } = pairs
  const e = mcnemarEValue(worse, better)
  const strictE = mcnemarEValue(strictWorse, strictBetter)
  const limit = 1 / gate.alpha
  const regressed = e >= limit || strictE >= limit
  const fmt = (value: number) => (value >= 100 ? value.toExponential(2) : value.toFixed(2))
  const message =
    `stopped early after ${stop.scored} of ${stop.total} decisions: on the ${paired} scored decisions paired with the baseline, ` +
    // Both rates over the same decisions: the scored ones paired with the baseline (never the baseline's full-set rate).
    `order consistency ${percent(pairedRate(pairs.baselineConsistent - worse + better, pairs.comparable))} vs ${percent(pairedRate(pairs.baselineConsistent, pairs.comparable))} at baseline on those decisions, ` +
    `${worse} newly inconsistent, ${better} newly consistent (sequential McNemar e = ${fmt(e)}); ` +
    `${strictWorse} no longer right under every ordering, ${strictBetter} newly right (e = ${fmt(strictE)}); ` +
    (regressed
      ? `${e >= limit ? 'order consistency' : 'circular accuracy'} regressed: e ≥ 1/α = ${fmt(limit)}, anytime-valid at α = ${gate.alpha}`
      : `no regression detected (e < 1/α = ${fmt(limit)}, anytime-valid at α = ${gate.alpha}); a full run (without stopEarly) has more power`)
  return pairedOutcome(baseline, current, pairs, regressed, message, { kind: 'sequential', eValue: e, strictEValue: strictE, alpha: gate.alpha })
}

function pairedRate(consistent: number, comparable: number): number {
  return comparable === 0 ? 0 : consistent / comparable
}
