/**
 * Whether the reports may present binned ECE as trustworthy: with `statistics`, the
 * noise-floor rule of `eceReliability` (Roelofs et al. 2022); without them only the size rule applies.
 */
import { ECE_MIN_ROWS } from './calibration.ts'
import type { EvalResultJson } from '../result/result.ts'

/** The ECE verdict the reports show. */
export interface EceNote {
  /** `true` reliable, `false` not; `null` when it cannot be told (no statistics, n ≥ 300). */
  reliable: boolean | null
  /** Why not, one phrase ending in the advice to read the Brier score; `null` when reliable or unknown. */
  note: string | null
}

/** The ECE reliability verdict for a result. */
export function eceNote(result: Pick<EvalResultJson, 'n' | 'ece' | 'statistics'>): EceNote {
  if (result.ece === null) return { reliable: null, note: null }
  const st = result.statistics
  if (result.n < ECE_MIN_ROWS) {
    const floor = st ? `; perfect calibration scores ${st.eceNote.floorMean.toFixed(3)} here` : ''
    return { reliable: false, note: `unreliable at n = ${result.n} (< ${ECE_MIN_ROWS}${floor}): read the Brier score` }
  }
  if (!st) return { reliable: null, note: null }
  if (st.eceReliable) return { reliable: true, note: null }
  return {
    reliable: false,
    note: `within the noise floor (perfect calibration's 95th percentile ${st.eceNote.floorP95.toFixed(3)}): read the Brier score`,
  }
}
