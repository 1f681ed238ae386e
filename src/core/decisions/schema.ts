/** The decision schema: one zod schema for every reader, its types and JSON Schema (docs/data-format.md). */
import { z } from 'zod'

/** Option letters, in slot order. Slot 0 is "A". At most 20 options per criterion. */
export const LETTERS = 'ABCDEFGHIJKLMNOPQRST'

/** Fewest and most options a criterion may have (the letter set bounds the maximum). */
export const MIN_OPTIONS = 2
export const MAX_OPTIONS = LETTERS.length

/** One option: a stable `id` (what gold labels and aggregation use) and the `text` shown to the model. */
export const OptionSchema = z.object({
  id: z.string().min(1, 'must be a non-empty string'),
  text: z.string(),
  /**
   * Keep this option at its slot under every ordering ("None of the above", "Tie");
   * debiasing moves only the unpinned options. Default false.
   */
  pinned: z.boolean().optional().describe('Keep this option at its position under every ordering (e.g. "None of the above", "Tie"). Default false.'),
})

/** The question asked of a state: a `key` naming the criterion, an optional question, 2–20 options. */
export const CriterionSchema = z
  .object({
    key: z.string().min(1, 'must be a non-empty string'),
    question: z.string().nullish(),
    options: z
      .array(OptionSchema)
      .min(MIN_OPTIONS, `needs at least ${MIN_OPTIONS} options`)
      .max(MAX_OPTIONS, `allows at most ${MAX_OPTIONS} options (one per letter A-T)`),
  })
  .superRefine((criterion, ctx) => {
    const seen = new Set<string>()
    criterion.options.forEach((option, index) => {
      if (seen.has(option.id))
        ctx.addIssue({ code: 'custom', path: ['options', index, 'id'], message: `duplicate option id "${option.id}"` })
      seen.add(option.id)
    })
    const movable = criterion.options.filter((option) => !option.pinned).length
    if (movable < MIN_OPTIONS)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `needs at least ${MIN_OPTIONS} options that are not pinned (has ${movable}); pinned options keep their slot, so nothing would be reordered` })
  })

/**
 * One decision, as a line of a JSONL file. Keys are snake_case for interop with the
 * Python tools. A decision without `answer_id` is unlabelled: it is read, counted and
 * skipped by evaluation, never scored.
 */
export const DecisionSchema = z
  .object({
    id: z.string().nullish(),
    state: z.string(),
    criterion: CriterionSchema,
    answer_id: z.string().nullish(),
    group_id: z.string().nullish(),
  })
  .superRefine((decision, ctx) => {
    const answer = decision.answer_id
    if (answer != null && !decision.criterion.options.some((option) => option.id === answer)) {
      const ids = decision.criterion.options.map((option) => option.id).join(', ')
      ctx.addIssue({ code: 'custom', path: ['answer_id'], message: `"${answer}" is not one of the option ids (${ids})` })
    }
  })

export type Option = z.infer<typeof OptionSchema>
export type Criterion = z.infer<typeof CriterionSchema>
export type Decision = z.infer<typeof DecisionSchema>
/** A decision with a gold answer. */
export type LabelledDecision = Decision & { answer_id: string }

/** Whether a decision carries a gold answer. */
export function isLabelled(decision: Decision): decision is LabelledDecision {
  return decision.answer_id != null
}
/** `criterion.options` re-arranged so that slot `i` shows option `order[i]`. */
export function reorderCriterion(criterion: Criterion, order: readonly number[]): Criterion {
  return { ...criterion, options: order.map((index) => criterion.options[index]!) }
}

/**
 * JSON Schema (draft 2020-12) of one decision line, generated from
 * {@link DecisionSchema}, for editors and for validating data outside this library.
 * Cross-field rules (unique option ids, `answer_id` among the options) are
 * enforced by the loader only; JSON Schema cannot express them.
 */
export function decisionJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(DecisionSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'vitest-sceptic decision',
    description: 'One line of a JSONL decision file: evidence (state), a criterion with 2-20 options, and optionally the gold answer_id.',
  }
}
