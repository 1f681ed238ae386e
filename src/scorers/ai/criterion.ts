/** `criterionFromDecideQuestion`: an app's AI SDK choice question as a criterion, so an eval asks what production asks. */
import type { Experimental_DecisionQuestion } from 'ai'
import { CriterionSchema, type Criterion } from '../../core/decisions/schema.ts'
import { ConfigError } from '../../core/support/errors.ts'
import { firstIssue } from '../../core/decisions/zod-issue.ts'

/**
 * The criterion for a choice question: options from `criteria` (id = key, text = its
 * description; a JSON description as its JSON text, a null one as the id), question from
 * `instructions` (left out when absent). A ConfigError for any other question type.
 */
export function criterionFromDecideQuestion(key: string, question: Experimental_DecisionQuestion): Criterion {
  const q = question as { type?: unknown; instructions?: unknown; criteria?: unknown } | null
  if (!q || typeof q !== 'object' || q.type !== 'choice')
    throw new ConfigError(`criterionFromDecideQuestion("${key}"): only choice questions can be evaluated as decisions, got ${q && typeof q === 'object' ? `type ${JSON.stringify(q.type)}` : typeof q}`)
  if (!q.criteria || typeof q.criteria !== 'object' || Array.isArray(q.criteria))
    throw new ConfigError(`criterionFromDecideQuestion("${key}"): criteria must be a map of option keys to descriptions`)
  const options = Object.entries(q.criteria as Record<string, unknown>).map(([id, description]) => ({ id, text: description == null ? id : asText(description) }))
  const candidate = { key, ...(q.instructions != null ? { question: asText(q.instructions) } : {}), options }
  const parsed = CriterionSchema.safeParse(candidate)
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error)
    throw new ConfigError(`criterionFromDecideQuestion("${key}"): ${field || 'the question'} ${message}`)
  }
  return parsed.data
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}
