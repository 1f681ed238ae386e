/** Naming the requests of a failed job in an error message. Pure. */
import type { ScoreRequest } from '../../core/scorer/contract.ts'

/** "request #3 (criterion "queue", state "Customer says…"), …": enough to find the decisions in the data. */
export function describeRequests(requests: readonly ScoreRequest[], rows: readonly number[]): string {
  const shown = rows.slice(0, 3).map((r) => {
    const request = requests[r]!
    const state = request.state.length > 40 ? request.state.slice(0, 40) + '…' : request.state
    return `request #${r} (criterion "${request.criterion.key}", state ${JSON.stringify(state)})`
  })
  const more = rows.length > 3 ? ` and ${rows.length - 3} more (#${rows.slice(3).join(', #')})` : ''
  return (rows.length === 1 ? '' : `${rows.length} requests: `) + shown.join(', ') + more
}
