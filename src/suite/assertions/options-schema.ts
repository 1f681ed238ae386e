/** The keys of the matchers' option objects, checked when a matcher is called: `{ atleast }` is refused by name (kept equal to the interfaces in matchers.ts). */
import { z } from 'zod'
import { refuseUnknownOptions } from '../../core/support/options.ts'

/** `toHaveBalancedAccuracy`, `toHaveOrderConsistency`, `toHavePerCriterionBalancedAccuracy`: `{ atLeast }`. */
export const AtLeastSchema = z.strictObject({ atLeast: z.number() })

/** `toHaveAccuracyAboveChance`. */
export const AboveChanceOptionsSchema = z.strictObject({ margin: z.number().optional(), alpha: z.number().optional() })

/** `toMatchLetterDistribution`. */
export const LetterDistributionOptionsSchema = z.strictObject({ tolerance: z.number().optional() })

/** `toMatchLetterDistribution`'s options, checked as both faces' letter snapshots take them. */
export function refuseUnknownLetterOptions(options: unknown): void {
  refuseUnknownOptions(LetterDistributionOptionsSchema, options, 'toMatchLetterDistribution() options')
}
