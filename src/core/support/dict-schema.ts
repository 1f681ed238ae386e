/** The zod schema of a {@link dict}, apart from dict.ts: what needs only `dict` and `own` (the CLI's `--help`) loads no zod. */
import { z } from 'zod'
import { dict } from './dict.ts'

/**
 * A zod schema for an object of `value`s keyed by user strings. Unlike
 * `z.record`, which rebuilds the object with assignments and so drops a
 * `__proto__` key, it keeps every own key and returns a {@link dict}.
 */
export function dictSchema<T extends z.ZodType>(value: T) {
  return z
    .custom<Record<string, unknown>>((input) => typeof input === 'object' && input !== null && !Array.isArray(input), {
      message: 'must be an object',
    })
    .transform((input, ctx) => {
      const out = dict<z.output<T>>()
      for (const key of Object.keys(input)) {
        const parsed = value.safeParse(input[key])
        if (!parsed.success) {
          const issue = parsed.error.issues[0]
          ctx.addIssue({ code: 'custom', path: [key, ...(issue?.path ?? [])], message: issue?.message ?? 'invalid value' })
          return z.NEVER
        }
        out[key] = parsed.data
      }
      return out
    })
}
