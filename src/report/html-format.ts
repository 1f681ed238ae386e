/** Small formatting helpers and type guards shared by the HTML report's modules. */
import type { EvalResultJson } from '../core/result/result.ts'
import { sortLetters } from './format.ts'

export { formatP, signed, signedPoints as signedPp } from './format.ts'

/** The result's letters, A first (then AA…, by length). */
export function sortedLetters(result: EvalResultJson): string[] {
  return sortLetters(Object.keys(result.letterDistribution))
}

export const signedInt = (value: number) => `${value > 0 ? '+' : '−'}${Math.abs(value)}`
