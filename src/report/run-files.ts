/**
 * Reading the files the report and compare commands are given (pure: text in, checked
 * values out): a `--json-out` document and a `--records-out` JSONL file.
 */
import { DataError } from '../core/errors.ts'
import type { DecisionRecord, EvalResultJson } from '../core/result.ts'
import { isFiniteNumber, isObject } from './html-format.ts'

/** One run to report: its `--json-out` document and, optionally, its records. */
export interface ReportRun {
  /** The parsed `--json-out` document (extra keys, such as intervals, are read when present). */
  result: EvalResultJson
  /** The run's records (`--records-out`); the reliability diagram and the paired comparison need them. */
  records?: readonly DecisionRecord[] | null | undefined
  /** A name for the run, e.g. its file name. Default `run A` / `run B`. */
  label?: string | undefined
}

/**
 * Parse and check a `--json-out` document. A {@link DataError} names the file and the
 * first field that is missing or of the wrong type.
 */
export function parseResultJson(text: string, file: string): EvalResultJson {
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new DataError(`not JSON (${(error as Error).message}); expected the output of sceptic evaluate --json-out`, { file })
  }
  if (!isObject(value)) throw new DataError('expected a JSON object from sceptic evaluate --json-out', { file })
  const need = (field: string, ok: boolean, what: string) => {
    if (!ok) throw new DataError(`must be ${what}; is this the output of sceptic evaluate --json-out?`, { file, field })
  }
  const numberOrNull = (v: unknown) => v === null || isFiniteNumber(v)
  need('accuracy', isFiniteNumber(value.accuracy), 'a number')
  need('balancedAccuracy', isFiniteNumber(value.balancedAccuracy), 'a number')
  need('orderConsistency', numberOrNull(value.orderConsistency), 'a number or null')
  need('ece', numberOrNull(value.ece), 'a number or null')
  need('brier', numberOrNull(value.brier), 'a number or null')
  need('n', Number.isInteger(value.n) && (value.n as number) >= 0, 'a non-negative integer')
  need('perCriterion', isObject(value.perCriterion) && Object.values(value.perCriterion).every(isFiniteNumber), 'an object of numbers')
  need('letterDistribution', isObject(value.letterDistribution) && Object.values(value.letterDistribution).every(isFiniteNumber), 'an object of numbers')
  need('manifest', isObject(value.manifest), 'an object')
  const manifest = value.manifest as Record<string, unknown>
  need('manifest.debias', typeof manifest.debias === 'string', 'a string')
  need('manifest.orderingsScored', Number.isInteger(manifest.orderingsScored), 'an integer')
  need('manifest.chance', isFiniteNumber(manifest.chance), 'a number')
  need('manifest.unlabelledSkipped', manifest.unlabelledSkipped === undefined || Number.isInteger(manifest.unlabelledSkipped), 'an integer')
  if (manifest.unlabelledSkipped === undefined) manifest.unlabelledSkipped = 0
  return value as unknown as EvalResultJson
}

/**
 * Parse and check a `--records-out` JSONL file. Blank lines are skipped; a bad line
 * is a {@link DataError} with the file, the line number and the field.
 */
export function parseRecordsJsonl(text: string, file: string): DecisionRecord[] {
  const out: DecisionRecord[] = []
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return
      const at = { file, line: i + 1 }
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        throw new DataError('not a JSON line; expected a record from sceptic evaluate --records-out', at)
      }
      if (!isObject(value)) throw new DataError('expected a JSON object (a record from --records-out)', at)
      for (const field of ['id', 'criterion', 'gold', 'prediction'] as const)
        if (typeof value[field] !== 'string') throw new DataError('must be a string', { ...at, field })
      const probabilities = value.probabilities
      if (!isObject(probabilities) || Object.keys(probabilities).length === 0 || !Object.values(probabilities).every(isFiniteNumber))
        throw new DataError('must be a non-empty object of numbers', { ...at, field: 'probabilities' })
      for (const field of ['picks', 'letters'] as const) {
        const list = value[field]
        if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw new DataError('must be an array of strings', { ...at, field })
      }
      out.push(value as unknown as DecisionRecord)
    })
  return out
}
