import { describe, expect, it } from 'vitest'
import { ScorerError } from '../../../src/core/support/errors.ts'
import { callScorer, makeRequest } from '../../../src/core/evaluate/score.ts'
import { scoreFailure } from '../../../src/core/scorer/contract.ts'

const criterion = () => ({ key: 'c', options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] })
const describeIt = (i: number) => `request ${i}`

describe('score stage', () => {
  it('a request builds its prompt once, on first read, and cannot be rewritten', () => {
    let built = 0
    const request = makeRequest('s', criterion(), (state) => `${state}#${++built}`, undefined)
    expect(built).toBe(0)
    expect([request.prompt, request.prompt]).toEqual(['s#1', 's#1'])
    expect(Object.isFrozen(request) && Object.isFrozen(request.criterion.options)).toBe(true)
    expect('epoch' in request).toBe(false)
    expect(makeRequest('s', criterion(), () => '', 2).epoch).toBe(2)
  })

  it('keeps vectors (with their sums), failures and flags apart', async () => {
    const requests = [0, 1, 2].map(() => makeRequest('s', criterion(), () => '', undefined))
    const scored = await callScorer(
      () => [[1, 3], scoreFailure('timeout', 'slow'), { probabilities: [2, 2], flags: ['refusal'] }],
      requests,
      undefined,
      describeIt,
    )
    expect(Array.from(scored.sums)).toEqual([4, 0, 4])
    expect(scored.failures[1]).toMatchObject({ failure: 'timeout' })
    expect(scored.flags[2]).toEqual(['refusal'])
    // an overflowing sum is rescaled by the maximum, so the ratio survives
    const big = await callScorer(() => [[1.7e308, 1.7e308]], requests.slice(0, 1), undefined, describeIt)
    expect(big.vectors[0]![0]! / big.sums[0]!).toBe(0.5)
  })

  it.each([
    ['a wrong count', () => [[0.5, 0.5]], /returned 1 vectors for 2 requests \(first: request 0\)/],
    ['a NaN', () => [[0.5, 0.5], [Number.NaN, 1]], /NaN at slot A for request 1/],
    ['a wrong length', () => [[1], [0.5, 0.5]], /1 values for request 0, which has 2 options/],
    ['all zeros', () => [[0, 0], [1, 1]], /all zeros for request 0/],
  ])('%s is a ScorerError naming the request', async (_, scorer, message) => {
    const requests = [0, 1].map(() => makeRequest('s', criterion(), () => '', undefined))
    const call = callScorer(scorer as never, requests, undefined, describeIt)
    await expect(call).rejects.toThrow(ScorerError)
    await expect(call).rejects.toThrow(message)
  })

  it('a throw fails the requests of that call, named by them, and keeps what was thrown', async () => {
    const requests = [0, 1].map(() => makeRequest('s', criterion(), () => '', undefined))
    const boom = new Error('boom')
    const scored = await callScorer(() => { throw boom }, requests, undefined, (i) => `request ${i + 7}`)
    expect(scored.failures).toEqual([
      { failure: 'error', message: 'the scorer threw on request 7 … request 8: boom' },
      { failure: 'error', message: 'the scorer threw on request 7 … request 8: boom' },
    ])
    expect(scored.vectors).toEqual([undefined, undefined])
    expect(scored.thrown?.error).toBe(boom)
    // An EvaluationError is the library's own verdict: it still ends the run.
    const own = callScorer(() => { throw new ScorerError('contract') }, requests, undefined, describeIt)
    await expect(own).rejects.toThrow('contract')
  })
})
