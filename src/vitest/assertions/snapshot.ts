/**
 * The letter-distribution snapshot as a Vitest domain snapshot adapter with a tolerance
 * (docs/design.md#vitest-mechanics-the-code-relies-on); the text and the rule are the suite's.
 */
import type { Snapshots } from 'vitest'
import { compareDistributions, DEFAULT_LETTER_TOLERANCE, parseDistribution, renderDistribution, type LetterDistribution } from '../../suite/assertions/snapshot.ts'

/**
 * Vitest's DomainSnapshotAdapter type, derived from the public `Snapshots` helper
 * because 4.1 does not re-export it from `vitest`.
 */
export type DomainAdapter = Parameters<(typeof Snapshots)['toMatchDomainSnapshot']>[0]

/**
 * The domain adapter for `toMatchLetterDistribution({ tolerance })`. Its name
 * includes nothing tolerance-specific, so changing the tolerance never orphans a
 * stored snapshot.
 */
export function letterDistributionAdapter(tolerance = DEFAULT_LETTER_TOLERANCE): DomainAdapter {
  return {
    name: 'letter-distribution',
    capture: (received: unknown) => ({ ...(received as LetterDistribution) }),
    render: (captured: LetterDistribution) => renderDistribution(captured),
    parseExpected: (text: string) => parseDistribution(text),
    match(captured: LetterDistribution, expected: LetterDistribution) {
      const comparison = compareDistributions(captured, expected, tolerance)
      return {
        pass: comparison.pass,
        resolved: renderDistribution(comparison.resolved),
        expected: renderDistribution(expected),
        message: comparison.pass
          ? undefined
          : `letters outside ±${tolerance}: ${comparison.offending
              .map(({ letter, actual, expected: stored }) => `${letter} ${fmt(actual)} vs stored ${fmt(stored)}`)
              .join(', ')}`,
      }
    },
  } as DomainAdapter
}

function fmt(value: number | null): string {
  return value === null ? 'absent' : value.toFixed(3)
}
