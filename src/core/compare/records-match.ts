/**
 * Whether a `--records-out` file belongs to a `--json-out` result, by content (another
 * run's records would redraw every chart from the wrong data): the records fingerprint
 * when the result has one, and always the headline numbers recomputed from the records.
 */
import { recordsFingerprint } from './compare.ts'
import { own } from '../support/dict.ts'
import { DataError } from '../support/errors.ts'
import { accuracy, balancedAccuracy, balancedAccuracyByGroup } from '../metrics/headline.ts'
import type { DecisionRecord, EvalResultJson } from '../result/result.ts'

/** Largest difference tolerated between a stored and a recomputed metric (rounding of the JSON). */
const TOLERANCE = 1e-9

/** Throw a {@link DataError} naming `recordsFile` when `records` are not the records of `result` (from `resultFile`). */
export function checkRecordsMatch(result: EvalResultJson, records: readonly DecisionRecord[], resultFile: string, recordsFile: string): void {
  const refuse = (why: string) => {
    throw new DataError(`${why}, so it is not from the same run as ${resultFile}`, { file: recordsFile })
  }
  if (records.length !== result.n) refuse(`has ${records.length} records but ${resultFile} has n = ${result.n}`)
  const seen = new Set<string>()
  for (const record of records) {
    if (seen.has(record.id)) refuse(`repeats the record id ${JSON.stringify(record.id)}`)
    seen.add(record.id)
  }
  const stored = result.manifest.recordsFingerprint
  if (typeof stored === 'string' && stored !== recordsFingerprint(records))
    refuse(`holds other decisions (ids, criteria or gold answers differ from the result's records fingerprint ${stored})`)
  const gold = records.map((r) => r.gold)
  const predictions = records.map((r) => r.prediction)
  const differs = (a: number, b: number) => !(Math.abs(a - b) <= TOLERANCE)
  if (differs(accuracy(gold, predictions), result.accuracy)) refuse('gives another accuracy')
  if (differs(balancedAccuracy(gold, predictions), result.balancedAccuracy)) refuse('gives another balanced accuracy')
  const perCriterion = balancedAccuracyByGroup(gold, predictions, records.map((r) => r.criterion))
  const keys = Object.keys(perCriterion)
  if (keys.length !== Object.keys(result.perCriterion).length || keys.some((key) => own(result.perCriterion, key) === undefined))
    refuse('has other criteria')
  for (const key of keys) if (differs(perCriterion[key]!, own(result.perCriterion, key)!)) refuse(`gives another balanced accuracy for criterion ${JSON.stringify(key)}`)
}
