import { describe, expect, it } from 'vitest'
import { decision } from './decisions.ts'

// Many tests build sets with decision() and no id. Ids must be unique per set (or the set
// is refused) and they decide which shard a decision lands in, so they are drawn from a
// counter, never at random: a random id could collide, or move a decision to another shard.
describe('the decision() test helper', () => {
  it('numbers the decisions it makes without an id: unique, consecutive, the same on every run', () => {
    const ids = Array.from({ length: 100_000 }, () => decision(2, 0).id!)
    expect(new Set(ids).size).toBe(ids.length)
    const first = Number(/^auto-(\d+)$/.exec(ids[0]!)?.[1])
    expect(ids).toEqual(ids.map((_, i) => `auto-${first + i}`))
    expect(decision(2, 0, { id: 'mine' }).id).toBe('mine')
  })
})
