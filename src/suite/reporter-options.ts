/** The keys of the sceptic reporter's options, checked where they are given: a misspelled one is refused by name. */
import { z } from 'zod'

/** The keys of `ScepticReporterOptions` (kept equal to them in reporter.ts), checked where they are given (the reporter, the plugin's `reporter`). */
export const ScepticReporterOptionsSchema = z.strictObject({
  color: z.boolean().optional(),
  githubSummary: z.boolean().optional(),
  githubAnnotations: z.boolean().optional(),
  html: z.string().optional(),
})
