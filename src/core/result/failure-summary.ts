/** One line summing up failures by reason, for error messages and the terminal report. */
import { countBy } from '../support/dict.ts'

/** `timeout 2, http_error 1`, most frequent first. */
export function summariseFailures(failures: readonly { failure?: string; reason?: string }[]): string {
  const counts = countBy(failures.map((f) => f.failure ?? f.reason ?? 'error'))
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ')
}
