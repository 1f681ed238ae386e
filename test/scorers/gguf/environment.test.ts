// node-llama-cpp parses CI as a strict boolean when imported: the value a CI system sets is given
// to it as the boolean it means, only while it loads, and put back after.
import { afterEach, describe, expect, it } from 'vitest'
import { ciAsBoolean, withCiAsBoolean } from '../../../src/scorers/gguf/environment.ts'

const before = process.env.CI
afterEach(() => {
  if (before === undefined) delete process.env.CI
  else process.env.CI = before
})

describe('ciAsBoolean', () => {
  it('leaves what node-llama-cpp accepts, and says what the rest means', () => {
    for (const accepted of [undefined, 'true', 'false', 'TRUE', 'FALSE', '1', '0']) expect(ciAsBoolean(accepted)).toBeUndefined()
    for (const yes of ['woodpecker', 'yes', 'True', 'on', ' 1 ']) expect(ciAsBoolean(yes)).toBe('true')
    for (const no of ['', 'no', 'off', 'False', ' 0 ']) expect(ciAsBoolean(no)).toBe('false')
  })
})

describe('withCiAsBoolean', () => {
  it('sets CI while overlapping loads run and restores it (or its absence) after the last', async () => {
    process.env.CI = 'woodpecker'
    let release!: () => void
    const first = withCiAsBoolean(() => new Promise<string | undefined>((resolve) => (release = () => resolve(process.env.CI))))
    const second = await withCiAsBoolean(async () => process.env.CI)
    expect(second).toBe('true')
    expect(process.env.CI).toBe('true')
    release()
    expect(await first).toBe('true')
    expect(process.env.CI).toBe('woodpecker')
    delete process.env.CI
    await expect(withCiAsBoolean(async () => { throw new Error('failed to load') })).rejects.toThrow('failed to load')
    expect('CI' in process.env).toBe(false)
  })
})
