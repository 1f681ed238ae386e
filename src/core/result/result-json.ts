/**
 * The optional parts of a run JSON (`--json-out`), as every reader checks them: each may be
 * absent (results written by earlier versions lack it, or by `statistics: false`), and, when
 * present, has its type — so a field of the wrong type is one DataError naming it, never a
 * renderer's TypeError or a page drawn from garbage. Older shapes stay readable: intervals as
 * `[lower, upper]`, the majority baseline as a number, verdicts as strings.
 */
import { z } from 'zod'
import { dictSchema } from '../support/dict-schema.ts'

const number = z.number({ error: 'must be a number' })
const numberOrNull = z.number({ error: 'must be a number or null' }).nullable()
const count = z.int({ error: 'must be a non-negative integer' }).nonnegative('must be a non-negative integer')
const string = z.string({ error: 'must be a string' })
const flag = z.boolean({ error: 'must be true or false' })

/**
 * `schema`'s check on a field whose value is passed through as written: its issues (with
 * their paths) are the field's, its output is the input. The result types are interfaces
 * (result.ts, statistics.ts), so the value is not re-shaped here.
 */
function checked(schema: z.ZodType): z.ZodType<unknown> {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const parsed = schema.safeParse(value)
      if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] })
    })
    .optional() // every such field may be absent
}

/** Each field checked by its schema, passed through as written. */
function checkedFields(fields: Record<string, z.ZodType>): Record<string, z.ZodType<unknown>> {
  return Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, checked(schema)]))
}

/** An interval: `{ lower, upper, ... }`, or `[lower, upper]` in older files. */
const IntervalJsonSchema = z.union([z.tuple([number, number]), z.looseObject({ lower: number, upper: number, estimate: number.optional(), level: number.optional(), method: string.optional(), resamples: count.optional(), unit: string.optional(), units: count.optional(), seed: z.int({ error: 'must be an integer' }).optional() })], {
  error: 'must be an interval { lower, upper } or [lower, upper]',
})

/** A verdict: `{ betterThanChance, message, ... }`, or its message alone in older files. */
const VerdictJsonSchema = z.union([string, z.looseObject({ betterThanChance: flag.optional(), chanceP: number.optional(), betterThanMajority: flag.nullable().optional(), message: string.nullable().optional(), decidable: flag.optional() })], {
  error: 'must be a verdict { betterThanChance, message } or a string',
})

/** `statistics`: what every renderer reads of it (see core/result/statistics.ts for the meaning). */
export const StatisticsJsonSchema = z.looseObject({
  intervals: z.looseObject({ accuracy: IntervalJsonSchema.nullable().optional(), balancedAccuracy: IntervalJsonSchema.nullable().optional(), orderConsistency: IntervalJsonSchema.nullable().optional(), level: number.optional() }).optional(),
  chance: z.looseObject({ accuracy: number.optional(), balancedAccuracy: number.optional(), orderConsistency: numberOrNull.optional() }).optional(),
  majorityBaseline: z
    .union([number, z.looseObject({ answers: dictSchema(string).optional(), accuracy: number.optional(), interval: IntervalJsonSchema.optional(), balancedAccuracy: number.optional(), pairedTest: z.looseObject({ b: count, c: count, discordant: count.optional(), pTwoSided: number.optional(), pMid: number.optional(), pBGreater: number.optional(), pCGreater: number.optional() }).optional() })], {
      error: 'must be a majority baseline { accuracy, ... } or a number',
    })
    .nullable()
    .optional(),
  minimumDetectableDifference: numberOrNull.optional(),
  rstd: numberOrNull.optional(),
  rstdReading: z.enum(['ok', 'one-letter', 'all-wrong'], { error: 'must be "ok", "one-letter" or "all-wrong"' }).nullable().optional(),
  eceReliable: flag.optional(),
  // Read by the ECE rule whenever `statistics` is there: required.
  eceNote: z.looseObject({ reason: string.nullable().optional(), floorMean: number, floorP95: number }, { error: 'must be an object { reason, floorMean, floorP95 }' }),
  verdicts: z.looseObject({ accuracy: VerdictJsonSchema.nullable().optional(), balancedAccuracy: VerdictJsonSchema.nullable().optional(), orderConsistency: VerdictJsonSchema.nullable().optional() }).optional(),
  orderConsistencyDecisions: count.optional(),
  settings: z.looseObject({ seed: z.int({ error: 'must be an integer' }).optional(), resamples: count.optional(), level: number.optional() }).optional(),
}, { error: 'must be an object' })

/** `stopEarly`: the anytime-valid verdicts and bounds of a run that could stop early. */
export const StopEarlyJsonSchema = z.looseObject({
  alpha: number,
  scored: count,
  total: count,
  stopped: flag,
  verdicts: dictSchema(z.enum(['pass', 'fail', 'undecided'], { error: 'must be "pass", "fail" or "undecided"' })),
  bounds: dictSchema(z.looseObject({ lower: number, upper: number }, { error: 'must be an object { lower, upper }' })),
}, { error: 'must be an object' })

/** The order-robustness panel's fields, each absent or null when not measured. */
const RobustnessJsonFields = {
  circularAccuracy: numberOrNull.optional(),
  orderingAccuracy: numberOrNull.optional(),
  accuracyByGoldSlot: dictSchema(numberOrNull).nullable().optional(),
  slotSensitivityGap: numberOrNull.optional(),
  slotBias: z.looseObject({ chiSquare: number, df: count, p: number, cramersV: number, cramersVInterval: z.tuple([number, number]).nullable().optional() }, { error: 'must be an object { chiSquare, df, p, cramersV }' }).nullable().optional(),
  ckld: numberOrNull.optional(),
  pairwise: z
    .looseObject({ pairs: count, positionConsistency: number, primacy: number, recency: number, preferenceFairness: number, firstShownRate: numberOrNull.optional(), repetitionStability: number.optional() }, { error: 'must be an object { pairs, positionConsistency, ... }' })
    .nullable()
    .optional(),
}

/** The other optional top-level fields of a run JSON. */
export const RunJsonExtraFields = checkedFields({
  score: number.optional(),
  metrics: dictSchema(number).optional(),
  failed: count.optional(),
  failures: z.array(z.looseObject({ id: string, criterion: string.optional(), gold: string.optional(), reason: string, message: string }), { error: 'must be an array of failures' }).optional(),
  unscored: z.looseObject({ goldClasses: z.array(string), criteria: z.array(string) }, { error: 'must be an object { goldClasses, criteria }' }).optional(),
  statistics: StatisticsJsonSchema.optional(),
  stopEarly: StopEarlyJsonSchema.optional(),
  ...RobustnessJsonFields,
})

/** The manifest's optional entries a report shows. */
export const ManifestJsonExtraFields = checkedFields({
  circularChance: numberOrNull.optional(),
  scorer: string.optional(),
  model: string.optional(),
  epochs: count.optional(),
  reducer: string.optional(),
  average: string.optional(),
  seed: z.int({ error: 'must be an integer' }).optional(),
  started: string.optional(),
  seconds: number.optional(),
  decisions: count.optional(),
  forwardPasses: count.optional(),
  failed: count.optional(),
  notScored: count.optional(),
  failedByReason: dictSchema(count).optional(),
  flagged: dictSchema(count).optional(),
  tied: z.looseObject({ decisions: count, picks: count }, { error: 'must be an object { decisions, picks }' }).optional(),
  versions: z.looseObject({ node: string.optional(), vitestSceptic: string.optional() }, { error: 'must be an object' }).optional(),
  cpu: z.looseObject({ kind: string, model: string }, { error: 'must be an object { kind, model }' }).optional(),
  cache: z.looseObject({ hits: count, misses: count }, { error: 'must be an object { hits, misses }' }).optional(),
  stopEarlyOff: string.optional(),
  thresholds: dictSchema(z.union([number, z.looseObject({ min: number.optional(), max: number.optional() })], { error: 'must be a number or { min, max }' })).optional(),
})
