/** The keys of the matchers' option objects, checked when a matcher is called: `{ atleast }` is refused by name (kept equal to the interfaces in matchers.ts). */
import { z } from 'zod'
import { refuseOutOfBounds, refuseUnknownOptions } from '../../core/support/options.ts'

/** `toHaveBalancedAccuracy`, `toHaveOrderConsistency`, `toHavePerCriterionBalancedAccuracy`: `{ atLeast }`. */
export const AtLeastSchema = z.strictObject({ atLeast: z.number().min(0).max(1) })

/** `toHaveAccuracyAboveChance`. */
export const AboveChanceOptionsSchema = z.strictObject({ margin: z.number().min(0).max(1).optional(), alpha: z.number().gt(0).lt(1).optional() })

/** `toMatchLetterDistribution`. */
export const LetterDistributionOptionsSchema = z.strictObject({ tolerance: z.number().min(0).max(1).optional() })

/** A matcher's options: keys and number bounds, each from its schema: `toHaveBalancedAccuracy(): atLeast must be a number ≥ 0 and ≤ 1, got 70`. */
export function refuseBadMatcherOptions(schema: z.ZodType, options: unknown, matcher: string): void {
  refuseUnknownOptions(schema, options, `${matcher}() options`)
  refuseOutOfBounds(schema, options, `${matcher}(): `)
}

/** `toMatchLetterDistribution`'s options, checked as both faces' letter snapshots take them. */
export function checkLetterOptions(options: unknown): void {
  refuseBadMatcherOptions(LetterDistributionOptionsSchema, options, 'toMatchLetterDistribution')
}
