/** One labelled decision as the evaluator reports it: its record (a `--records-out` line, type inferred from its schema) or its failure. */
import { z } from 'zod'
import { dictSchema } from '../support/dict-schema.ts'

const text = z.string({ error: 'must be a string' })
const texts = z.array(text, { error: 'must be an array of strings' })

/** One labelled decision as scored, in input order (the `--records-out` JSONL line). */
export const DecisionRecordSchema = z.object({
  /** The decision's `id`, or `#k`, its 1-based position among the labelled rows, when it has none. */
  id: text,
  criterion: text,
  /** Gold option id. */
  gold: text,
  /**
   * Final predicted option id (the maximum of the averaged probabilities); `null` when the
   * maximum is tied (options within a relative 1e-12): a tie is no answer and counts as wrong.
   */
  prediction: text.nullable(),
  /** The tied option ids, in the criterion's option order; present only when `prediction` is `null`. */
  tied: texts.optional(),
  /** Final probability per option id, renormalised to sum to 1. */
  probabilities: dictSchema(z.number({ error: 'must be a number' })).refine((p) => Object.keys(p).length > 0, 'must be a non-empty object of numbers'),
  /** Option id picked under each ordering, in ordering order; `null` where that ordering's maximum is tied. */
  picks: z.array(text.nullable(), { error: 'must be an array of strings or nulls' }),
  /** Letter (slot) picked under each ordering; `null` where tied. */
  letters: z.array(text.nullable(), { error: 'must be an array of strings or nulls' }),
  /**
   * Present (true) only when some ordering's top two probabilities were within 1e-4 without a
   * tie: rounding on another CPU kind could swap that pick (the baseline gate names such flips).
   */
  nearTie: z.literal(true, { error: 'must be true when present' }).optional(),
  /** First 16 hex digits of sha256 of the prompt as presented in the first ordering. */
  promptHash: text.optional(),
  /** That prompt's text; only with `storePrompts: true`. */
  prompt: text.optional(),
  /** Flags the scorer raised on this decision's requests; present only when there are any. */
  flags: texts.optional(),
  /** Correctness (1/0) per epoch; present only when `epochs > 1`. */
  epochValues: z.array(z.number({ error: 'must be a number' })).optional(),
  /** The reduced score of `epochValues`, in [0, 1]; present only when `epochs > 1`. */
  value: z.number({ error: 'must be a number' }).optional(),
})

/** One labelled decision as scored, in input order (the `--records-out` JSONL line); see {@link DecisionRecordSchema}. */
export interface DecisionRecord extends z.infer<typeof DecisionRecordSchema> {}

/** A labelled decision that could not be scored. Counted, never dropped. */
export interface DecisionFailure {
  /** Decision id (or `#k`). */
  id: string
  criterion: string
  /** Its gold option id: which class of balanced accuracy went unmeasured (absent in results written before it existed). */
  gold?: string
  /** The failure bucket of its first failed request. */
  reason: string
  /** What happened (no secrets). */
  message: string
}
