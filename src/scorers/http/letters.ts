/** Reading option-letter probabilities from an endpoint's top log-probabilities at one position. */
import { LETTERS } from '../../core/decisions/schema.ts'
import { expShifted, renormalise } from '../../core/evaluate/renormalise.ts'

/** A token and its log-probability, as endpoints return the top alternatives. */
export interface TokenLogprob {
  token: string
  logprob: number
}

/** Letter probabilities read from one position's top log-probabilities. */
export interface LetterReadout {
  /** One probability per letter of the request, renormalised over those letters. */
  probabilities: number[]
  /** Letters absent from the top log-probabilities (given the floor). */
  missing: string[]
}

/**
 * Read the request's letters from the top log-probabilities of the answer position.
 * A letter's mass is the sum over the tokens that spell it (`" A"` and `"A"`);
 * letters absent from the top list get half the smallest probability listed (an
 * upper bound on what they can have, halved), and are reported as missing.
 * Returns `null` when no letter at all appears: nothing was read.
 */
export function readLetters(top: readonly TokenLogprob[], optionCount: number): LetterReadout | null {
  const letters = LETTERS.slice(0, optionCount)
  const mass = new Array<number>(optionCount).fill(0)
  // Relative to the largest log-prob listed (log-sum-exp): no exp underflows to 0 or overflows.
  const weights = expShifted(top.map((t) => t.logprob))
  if (!weights) return null
  let smallest = Infinity
  top.forEach(({ token }, k) => {
    const p = weights[k]!
    if (p === 0) return
    smallest = Math.min(smallest, p)
    const letter = token.trim()
    const index = letter.length === 1 ? letters.indexOf(letter) : -1
    if (index >= 0 && (token === letter || token === ' ' + letter)) mass[index]! += p
  })
  if (mass.every((m) => m === 0)) return null
  const floor = (Number.isFinite(smallest) ? smallest : 1e-6) / 2
  const missing: string[] = []
  mass.forEach((m, i) => {
    if (m === 0) {
      mass[i] = floor
      missing.push(letters[i]!)
    }
  })
  return { probabilities: renormalise(mass), missing }
}

/**
 * A log-probability as the response gives it: a JSON number, else NaN (which
 * {@link absurdLogprob} reports). `null`, `""` or `"-1.2"` are not read as numbers:
 * `Number(null)` is 0, which would be probability 1.
 */
export function asLogprob(value: unknown): number {
  return typeof value === 'number' ? value : Number.NaN
}

/**
 * Why a top log-probability list is not one, or `null` when it is: every entry must
 * be a number ≤ 0 or `-Infinity` (a log-probability above 0 is a probability above 1).
 */
export function absurdLogprob(top: readonly TokenLogprob[]): string | null {
  const bad = top.find((t) => Number.isNaN(t.logprob) || t.logprob > 1e-6)
  return bad ? `log-probability ${String(bad.logprob)} for token ${JSON.stringify(bad.token)} is not a log-probability (must be ≤ 0)` : null
}

/**
 * The answer letter of a generated text: the first of the request's letters that
 * stands alone at the start ("B", " B.", "(B)", "Answer: B"). `null` when there is none.
 */
export function parseAnswerLetter(text: string, optionCount: number): number | null {
  const letters = LETTERS.slice(0, optionCount)
  const match = /^\s*(?:answer\s*[:\-]?\s*)?\(?([A-T])(?![A-Za-z])/i.exec(text)
  if (!match) return null
  const index = letters.indexOf(match[1]!.toUpperCase())
  return index >= 0 && match[1] === match[1]!.toUpperCase() ? index : null
}
