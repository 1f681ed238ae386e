/** The keys of the matchers' option objects, checked when a matcher is called: `{ atleast }` is refused by name. */
import { z } from 'zod'
import type { SameKeys } from '../../core/support/options.ts'
import type { AboveChanceOptions, AtLeast, LetterDistributionOptions } from './matchers.ts'

/** `toHaveBalancedAccuracy`, `toHaveOrderConsistency`, `toHavePerCriterionBalancedAccuracy`: `{ atLeast }`. */
export const AtLeastSchema = z.strictObject({ atLeast: z.number() })
true satisfies SameKeys<z.input<typeof AtLeastSchema>, AtLeast>

/** `toHaveAccuracyAboveChance`. */
export const AboveChanceOptionsSchema = z.strictObject({ margin: z.number().optional(), alpha: z.number().optional() })
true satisfies SameKeys<z.input<typeof AboveChanceOptionsSchema>, AboveChanceOptions>

/** `toMatchLetterDistribution`. */
export const LetterDistributionOptionsSchema = z.strictObject({ tolerance: z.number().optional() })
true satisfies SameKeys<z.input<typeof LetterDistributionOptionsSchema>, LetterDistributionOptions>
