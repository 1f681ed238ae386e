import { describe, expect, it } from 'vitest'
import { buildPrompt, evaluateWithScorer, type ScoreRequest } from '../../../src/core/index.ts'
import { decision } from '../../helpers/decisions.ts'

describe('prompt (docs/data-format.md#the-prompt)', () => {
  const criterion = { key: 'queue', question: 'Which queue?', options: [{ id: 'b', text: 'Billing' }, { id: 't', text: 'Tech' }] }

  it('is state, blank line, question, lettered options, "Answer:"', () => {
    expect(buildPrompt('Charged twice.', criterion)).toBe('Charged twice.\n\nWhich queue?\nA. Billing\nB. Tech\nAnswer:')
  })

  it('leaves the question line out when there is none', () => {
    expect(buildPrompt('S', { ...criterion, question: undefined })).toBe('S\n\nA. Billing\nB. Tech\nAnswer:')
  })

  it('each request carries the prompt of its ordering, and it survives structuredClone and JSON', async () => {
    const seen: ScoreRequest[] = []
    await evaluateWithScorer([{ ...decision(2, 0), state: 'Charged twice.', criterion, answer_id: 'b' }], (requests) => {
      seen.push(...requests)
      return requests.map(() => [1, 1])
    }, { debias: 'cyclic', onWarning: () => {} })
    expect(seen.map((r) => r.prompt)).toEqual([
      'Charged twice.\n\nWhich queue?\nA. Billing\nB. Tech\nAnswer:',
      'Charged twice.\n\nWhich queue?\nA. Tech\nB. Billing\nAnswer:',
    ])
    // Worker threads and HTTP scorers copy requests; the text must travel with them.
    expect(structuredClone(seen[1]!).prompt).toBe(seen[1]!.prompt)
    expect(JSON.parse(JSON.stringify(seen[0]!)).prompt).toBe(seen[0]!.prompt)
  })

  it('a template option replaces the default text', async () => {
    const seen: string[] = []
    await evaluateWithScorer([decision(2, 0)], (requests) => {
      seen.push(...requests.map((r) => r.prompt))
      return requests.map(() => [1, 1])
    }, { debias: 'none', template: (state, c) => `${state} | ${c.options.map((o) => o.id).join(',')}`, onWarning: () => {} })
    expect(seen).toEqual(['Some evidence. | o0,o1'])
  })
})
