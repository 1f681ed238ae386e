/**
 * The letter-distribution snapshot, runner-neutral: its text, its tolerance rule and the
 * read-only guard under CI. Each runner's face stores it in the test file's ordinary `.snap`
 * file, so the runner's own rules apply: written locally, never written under CI (a missing
 * one fails), rewritten by `-u`.
 */

/** A letter histogram: share of picks per letter. */
export type LetterDistribution = Record<string, number>

/** Default tolerance of the letter snapshot: 5 percentage points per letter. */
export const DEFAULT_LETTER_TOLERANCE = 0.05

/** One `A=0.250` line per letter, sorted, framed by newlines as Vitest stores snapshot strings. */
export function renderDistribution(distribution: Readonly<LetterDistribution>): string {
  const lines = Object.keys(distribution)
    .sort()
    .map((letter) => `${letter}=${distribution[letter]!.toFixed(3)}`)
  return `\n${lines.join('\n')}\n`
}

/** Parse what {@link renderDistribution} wrote. Lines that are not `LETTER=number` are ignored. */
export function parseDistribution(text: string): LetterDistribution {
  const out: LetterDistribution = {}
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s*=\s*(-?[0-9.eE+-]+)\s*$/.exec(line)
    if (match) out[match[1]!] = Number(match[2])
  }
  return out
}

/** Outcome of {@link compareDistributions}. */
export interface DistributionComparison {
  /** Every letter present on both sides and within tolerance. */
  pass: boolean
  /**
   * What `-u` writes: the stored value where within tolerance (so an update causes
   * no churn), the measured value elsewhere.
   */
  resolved: LetterDistribution
  /** Letters outside tolerance (or present on one side only), with both values. */
  offending: { letter: string; actual: number | null; expected: number | null }[]
}

/** Compare a measured distribution with a stored one, letter by letter, within `tolerance`. */
export function compareDistributions(
  actual: Readonly<LetterDistribution>,
  expected: Readonly<LetterDistribution>,
  tolerance: number,
): DistributionComparison {
  const resolved: LetterDistribution = {}
  const offending: DistributionComparison['offending'] = []
  const letters = [...new Set([...Object.keys(actual), ...Object.keys(expected)])].sort()
  for (const letter of letters) {
    const a = actual[letter]
    const e = expected[letter]
    // Stored values are rounded to 3 decimals; allow for that rounding on top of the tolerance.
    if (a !== undefined && e !== undefined && Math.abs(a - e) <= tolerance + 5e-4) resolved[letter] = e
    else {
      if (a !== undefined) resolved[letter] = a
      offending.push({ letter, actual: a ?? null, expected: e ?? null })
    }
  }
  return { pass: offending.length === 0, resolved, offending }
}

/**
 * Run `match` on a runner's snapshot state read-only when `ci`: its update mode held at `none`
 * meanwhile, so under CI a missing snapshot fails and none is written in any mode (`-u`,
 * `--update=new`, `jest --ci=false`). Vitest's `SnapshotState` and jest-snapshot's both keep
 * the mode in `_updateSnapshot`; a state without it is an error, never a silent write.
 */
export function readOnlyUnderCI<T>(state: object | undefined, ci: boolean, match: () => T): T {
  if (!ci) return match()
  const holder = state as { _updateSnapshot?: unknown } | undefined
  const mode = holder?._updateSnapshot
  if (!holder || typeof mode !== 'string') throw new Error('toMatchLetterDistribution(): this runner\'s snapshot state has no update mode (_updateSnapshot), so it cannot be kept from writing under CI; use Vitest 4.1 or Jest 30')
  holder._updateSnapshot = 'none'
  const restore = () => void (holder._updateSnapshot = mode)
  let pending = false
  try {
    const result = match()
    // expect.poll's snapshot settles later: the mode stays `none` until it has.
    if (result instanceof Promise) {
      pending = true
      return result.finally(restore) as T
    }
    return result
  } finally {
    if (!pending) restore()
  }
}
