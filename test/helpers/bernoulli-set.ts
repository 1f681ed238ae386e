import { mulberry32 } from '../../src/core/math/random.ts'
import type { Decision, ScoreFn } from '../../src/core/index.ts'

/**
 * `n` four-option decisions whose reader is right with chance `rate` each (a seeded draw
 * per decision) and order-consistent with chance `consistentRate`, gold answers spread over
 * o0..o3 and two criteria, sorted so that every wrong decision comes first (an ordered
 * file must not bias a run that stops early).
 */
export function bernoulliSet(n: number, rate: number, seed: number, options: { consistentRate?: number } = {}): Decision[] {
  const random = mulberry32(seed)
  const rows = Array.from({ length: n }, (_, i) => {
    const gold = `o${(i >> 1) % 4}`
    const right = random() < rate
    const steady = random() < (options.consistentRate ?? 1)
    return {
      id: `d${i}`,
      state: `${gold} ${right ? 'right' : 'wrong'} ${steady ? 'steady' : 'wobbly'}`,
      criterion: { key: i % 2 === 0 ? 'even' : 'odd', options: ['o0', 'o1', 'o2', 'o3'].map((id) => ({ id, text: `Option ${id}` })) },
      answer_id: gold,
    }
  })
  return rows.sort((a, b) => Number(a.state.includes('right')) - Number(b.state.includes('right')))
}

/**
 * Reads the state: 3 on the gold option when `right`, else on the next option; a
 * `wobbly` decision also gets a pull of 2.5 on slot A, which changes its pick under the
 * orderings that put another option there (its final answer stays the same).
 */
export const bernoulliReader: ScoreFn = (requests) =>
  requests.map(({ state, criterion }) => {
    const [gold, verdict, steadiness] = state.split(' ')
    const target = verdict === 'right' ? gold : `o${(Number(gold!.slice(1)) + 1) % 4}`
    return criterion.options.map((option, slot) => (option.id === target ? 3 : 1) + (steadiness === 'wobbly' && slot === 0 ? 2.5 : 0))
  })
