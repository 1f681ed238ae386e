/**
 * The baseline gate of a run that stopped early: the looks' sequential McNemar e-processes on
 * the decisions scored (anytime-valid, so valid at the stop), instead of the fixed-sample
 * exact test, whose level holds only for a sample fixed in advance. `pass` only when the
 * drop the gate must catch (half the detectable drop, for room) is ruled out; no regression detected yet is no verdict.
 */
import { pairedVerdict, passMargin } from '../../core/thresholds/sequential/paired.ts'
import type { StopEarlyResult } from '../../core/result/stop-early.ts'
import { compareWithBaseline, pairDecisions, pairedOutcome, type BaselineFile, type BaselineGateOptions, type BaselineOutcome } from './file.ts'
import { percent } from '../assertions/format.ts'

/** Compare the scored part of a stopped run with the baseline, at the gate's `alpha`. */
export function compareSequentially(baseline: BaselineFile, current: BaselineFile, gate: BaselineGateOptions, stop: StopEarlyResult): Omit<BaselineOutcome, 'file'> {
  const decisions = pairDecisions(baseline, current)
  // A changed setup or nothing paired fails as in a full run.
  if (baseline.debias !== current.debias || baseline.scorer !== current.scorer || decisions.paired === 0) return compareWithBaseline(baseline, current, gate)
  // The looks' own counts when they kept them (a stratified order pairs draws, weighed as the set is), else the scored decisions'.
  const pairs = { ...decisions, ...stop.baselinePairs }
  const { worse, better, strictWorse, strictBetter, paired } = pairs
  // The looks' own test on the same counts: they stopped on this verdict (core/thresholds/sequential/paired.ts).
  const { verdict, eValue: e, strictEValue: strictE, notWorseEValue, strictNotWorseEValue } = pairedVerdict(pairs, gate.alpha, gate.detectableDrop)
  const limit = 1 / gate.alpha
  const fmt = (value: number) => (value >= 100 ? value.toExponential(2) : value.toFixed(2))
  const drop = percent(passMargin(gate.detectableDrop))
  const message =
    `stopped early after ${stop.scored} of ${stop.total} decisions: on the ${paired} ${stop.baselinePairs && paired !== decisions.paired ? 'draws of the stratified order' : 'scored decisions'} paired with the baseline, ` +
    // Both rates over the same decisions: the scored ones paired with the baseline (never the baseline's full-set rate).
    `order consistency ${percent(pairedRate(pairs.baselineConsistent - worse + better, pairs.comparable))} vs ${percent(pairedRate(pairs.baselineConsistent, pairs.comparable))} at baseline on those decisions, ` +
    `${worse} newly inconsistent, ${better} newly consistent (sequential McNemar e = ${fmt(e)}); ` +
    `${strictWorse} no longer right under every ordering, ${strictBetter} newly right (e = ${fmt(strictE)}); ` +
    (verdict === 'fail'
      ? `${e >= limit ? 'order consistency' : 'circular accuracy'} regressed: e ≥ 1/α = ${fmt(limit)}, anytime-valid at α = ${gate.alpha}`
      : verdict === 'pass'
        ? `no drop of ${drop} or more: e = ${fmt(notWorseEValue)} (order consistency) and ${fmt(strictNotWorseEValue)} (circular accuracy) ≥ 1/α = ${fmt(limit)}, anytime-valid at α = ${gate.alpha}`
        : `not decided: no regression detected (e < 1/α = ${fmt(limit)}), and no drop of ${drop} or more not yet ruled out (e = ${fmt(notWorseEValue)} and ${fmt(strictNotWorseEValue)})`)
  return pairedOutcome(baseline, current, pairs, verdict === 'fail', message, { kind: 'sequential', eValue: e, strictEValue: strictE, alpha: gate.alpha, verdict })
}

function pairedRate(consistent: number, comparable: number): number {
  return comparable === 0 ? 0 : consistent / comparable
}
