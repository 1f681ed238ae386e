/**
 * Stage 4b of an evaluation: the `EvalResult` from the outcomes: metrics, the
 * order-robustness panel, failures, the manifest and the statistics.
 */
import { NO_DISTRIBUTION } from '../metrics/no-distribution.ts'
import pkg from '../../../package.json' with { type: 'json' }
import type { CacheCounts } from '../scorer/cache-counts.ts'
import { recordsFingerprint } from '../compare/compare.ts'
import { fingerprint } from '../decisions/fingerprint.ts'
import { LETTERS } from '../decisions/schema.ts'
import { countBy } from '../support/dict.ts'
import { computeStatistics } from '../statistics/compute.ts'
import { withManifestExtras } from '../result/manifest-extras.ts'
import {
  accuracy,
  balancedAccuracy,
  balancedAccuracyByGroup,
  brierScore,
  chanceAccuracy,
  expectedCalibrationError,
  letterDistribution,
  orderConsistency,
} from '../metrics/headline.ts'
import type { DecisionFailure } from '../result/record.ts'
import type { EvalResult, Manifest } from '../result/result.ts'
import { circularChance, panelDecision, robustnessPanel } from '../metrics/robustness.ts'
import { runCustomMetrics } from './sample-score.ts'
import type { Aggregate } from './aggregate.ts'
import type { EvaluateOptions, Settings } from './options.ts'
import { decisionId } from '../decisions/id.ts'
import type { Plan } from './plan.ts'
import { prideManifest } from './priors.ts'
import type { Outcomes } from './records.ts'
import { largest } from '../support/spreadless.ts'
import { cpuKind } from '../support/cpu-kind.ts'

/** What the run itself measured, for the manifest. */
export interface RunFacts {
  /** `Date.now()` at the start. */
  readonly startedAt: number
  /** Wall time, seconds. */
  readonly seconds: number
  /** Content-free requests made (calibrated mode), else 0. */
  readonly contentFreeRequests: number
  /** Pride's estimated slot prior per option count. */
  readonly slotPriors: ReadonlyMap<number, number[]>
  /** What scored the requests. */
  readonly scorer: string
  /** Cache hits and misses during the run, when the scorer is cached. */
  readonly cache: CacheCounts | undefined
}

/** Everything a caller reads of one evaluation. */
export function assembleResult(
  plan: Plan,
  aggregate: Aggregate,
  outcomes: Outcomes,
  settings: Settings,
  options: EvaluateOptions,
  facts: RunFacts,
): EvalResult {
  const { rows, sampled } = plan
  const { debias, epochs, seed, average, reducer, prideFraction } = settings
  const { scoredRows, gold, predictions, probabilities, goldIndex, confidences, hits, records, samples, valueSum } = outcomes
  const { picks, pickedLetters, epochPicks, letterCounts, tiedPicks } = aggregate

  const failureList: DecisionFailure[] = [...aggregate.failures].sort(([a], [b]) => a - b).map(([r, failure]) => ({
    id: decisionId(rows[r]!, r),
    criterion: rows[r]!.criterion.key,
    ...(rows[r]!.answer_id !== undefined ? { gold: rows[r]!.answer_id } : {}),
    reason: failure.failure,
    message: failure.message,
  }))
  const flaggedCounts = countBy(records.flatMap((record) => record.flags ?? []))
  const calibrationMeasured = !(NO_DISTRIBUTION in flaggedCounts)

  const scoredDecisions = scoredRows.map((r) => rows[r]!)
  const panelInput = scoredRows.map((r, i) => panelDecision(rows[r]!.criterion, goldIndex[i]!, plan.orderings[r]!, pickedLetters[r]!, epochPicks?.[r], tiedPicks.get(r)))
  // Cramér's V's interval is a bootstrap: skipped, like the others, with `statistics: false`.
  const panel = robustnessPanel(panelInput, { seed, ...(options.statistics === false ? { resamples: 0 } : {}) })
  const widest = largest(scoredDecisions.map((row) => row.criterion.options.length))
  const manifest: Manifest = withManifestExtras({
    debias,
    orderingsScored: largest(plan.orderings.map((set) => set.length)),
    forwardPasses: plan.requestsTotal + facts.contentFreeRequests,
    decisions: rows.length,
    unlabelledSkipped: plan.skipped,
    failed: failureList.length,
    failedByReason: countBy(failureList.map((f) => f.reason)),
    flagged: flaggedCounts,
    tied: { decisions: outcomes.tiedDecisions, picks: aggregate.tiedPickCount() },
    epochs,
    reducer: reducer.name,
    fingerprint: fingerprint(rows),
    recordsFingerprint: recordsFingerprint(records),
    chance: chanceAccuracy(scoredDecisions.map((row) => row.criterion.options.length)),
    circularChance: circularChance(panelInput),
    seed,
    versions: { node: process.versions.node, vitestSceptic: pkg.version },
    // Quantized kernels differ by CPU kind: a baseline or a cached score from another kind is re-checked, not trusted.
    cpu: cpuKind(),
    started: new Date(facts.startedAt).toISOString(),
    seconds: facts.seconds,
    scorer: facts.scorer,
    average,
    ...(facts.cache ? { cache: facts.cache } : {}),
    ...(sampled ? { pride: prideManifest(rows, sampled, facts.slotPriors, prideFraction, plan.requestsTotal / epochs) } : {}),
  }, options.manifest)

  const statistics =
    options.statistics === false
      ? undefined
      : computeStatistics(
          records,
          scoredRows.map((r) => rows[r]!.group_id ?? null),
          {
            seed,
            ...(typeof options.statistics === 'object' ? options.statistics : {}),
            // RStd is over the gold answer's slot letter as the decision was written (PriDe's "ID").
            goldLetters: scoredRows.map((r) => LETTERS[rows[r]!.criterion.options.findIndex((o) => o.id === rows[r]!.answer_id)]!),
          },
        )

  return {
    accuracy: accuracy(gold, predictions),
    balancedAccuracy: balancedAccuracy(gold, predictions),
    // Under pride only the sampled decisions were scored under several orderings.
    orderConsistency: orderConsistency((sampled ? scoredRows.filter((r) => sampled.has(r)) : scoredRows).map((r) => picks[r]!)),
    ...panel,
    // A one-hot vector is no distribution: calibration is not measured on a run that has one.
    ece: calibrationMeasured ? expectedCalibrationError(confidences, hits) : null,
    brier: calibrationMeasured ? brierScore(probabilities, goldIndex) : null,
    perCriterion: balancedAccuracyByGroup(gold, predictions, scoredDecisions.map((row) => row.criterion.key)),
    letterDistribution: letterDistribution(letterCounts.slice(0, widest), [...LETTERS.slice(0, widest)]),
    n: records.length,
    score: records.length === 0 ? 0 : valueSum / records.length,
    metrics: runCustomMetrics(options.metrics, samples),
    failed: failureList.length,
    failures: failureList,
    ...unscoredPopulations(gold, scoredDecisions.map((row) => row.criterion.key), failureList),
    ...(statistics ? { statistics } : {}),
    manifest,
    records,
  }
}

/**
 * The gold classes and criteria whose every decision failed to score: balanced accuracy and
 * the worst criterion silently leave them out, so the gate reads them as not measured.
 */
function unscoredPopulations(gold: readonly string[], criteria: readonly string[], failures: readonly DecisionFailure[]): Pick<EvalResult, 'unscored'> {
  const scoredGold = new Set(gold)
  const scoredCriteria = new Set(criteria)
  const classes = [...new Set(failures.flatMap((f) => (f.gold !== undefined && !scoredGold.has(f.gold) ? [f.gold] : [])))].sort()
  const unscoredCriteria = [...new Set(failures.map((f) => f.criterion).filter((c) => !scoredCriteria.has(c)))].sort()
  return classes.length + unscoredCriteria.length === 0 ? {} : { unscored: { goldClasses: classes, criteria: unscoredCriteria } }
}
