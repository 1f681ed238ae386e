/** Small formatting helpers and type guards shared by the HTML report's modules. */
import type { EvalResultJson } from '../core/result.ts'

/** The result's letters, A first (then AA…, by length). */
export function sortedLetters(result: EvalResultJson): string[] {
  return Object.keys(result.letterDistribution).sort((x, y) => (x.length - y.length) || (x < y ? -1 : x > y ? 1 : 0))
}

export const pValue = (p: number) => (p >= 0.001 ? p.toFixed(4).replace(/0+$/, '').replace(/\.$/, '.0') : p.toExponential(2))
export const signed = (value: number, digits: number) => `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(digits)}`
export const signedPp = (value: number) => `${signed(value * 100, 1)} pp`
export const signedInt = (value: number) => `${value > 0 ? '+' : '−'}${Math.abs(value)}`
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
export const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
