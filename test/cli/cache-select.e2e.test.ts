// `sceptic cache clear --scorer DESCRIPTION | --older-than DAYS` through the built CLI:
// only the selected entries go; the rest keep serving hits.
import { readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-cache-select-')
const DATA = join(ROOT, 'examples/data/tickets.jsonl')
const scorer = (name: string) => join(dir, `${name}.mjs`)
beforeAll(() => {
  for (const name of ['always-first', 'keyword-reader'])
    writeFileSync(scorer(name), `export { default } from ${JSON.stringify(join(ROOT, 'examples/scorers', `${name}.mjs`))}\nexport const cacheKey = '${name} v1'\n`)
})

/** Evaluate with one scorer into `cache`; returns the report's cache line. */
async function run(cache: string, name: string): Promise<string> {
  // The test config turns the cache off for every spawned run; these runs use one.
  const { code, stdout, stderr } = await sceptic(['evaluate', DATA, '--scorer', scorer(name), '--cache', cache], { env: { SCEPTIC_CACHE_MODE: 'read-write' } })
  expect(code, stderr).toBe(0)
  return /^cache\s+(.*)$/m.exec(stdout)![1]!
}

describe('sceptic cache clear, selectively', () => {
  it('--scorer removes that scorer\'s entries only', async () => {
    const cache = join(dir, 'by-scorer')
    await run(cache, 'always-first')
    await run(cache, 'keyword-reader')
    const label = `scorer ${scorer('always-first')}`
    const cleared = await sceptic(['cache', 'clear', cache, '--scorer', label])
    expect(cleared.code, cleared.stderr).toBe(0)
    expect(cleared.stdout).toBe(`removed 168 entries of scorer ${JSON.stringify(label)} from ${cache}\n`)
    expect(await run(cache, 'keyword-reader')).toBe('168 hits, 0 scored')
    expect(await run(cache, 'always-first')).toBe('0 hits, 168 scored')
    const none = await sceptic(['cache', 'clear', cache, '--scorer', 'no such scorer'])
    expect(none.stdout).toMatch(/^removed 0 entries/)
    expect(none.stderr).toMatch(/no scorer described as "no such scorer" in the cache; `sceptic cache stats` lists the descriptions/)
  })

  it('--older-than removes entries last written before the cut, keeping one written again since', async () => {
    const cache = join(dir, 'by-age')
    await run(cache, 'always-first')
    // That run's segment was written 10 days ago.
    const old = Date.now() / 1000 - 10 * 86_400
    for (const name of readdirSync(join(cache, 'segments'))) utimesSync(join(cache, 'segments', name), old, old)
    await run(cache, 'keyword-reader')
    const cleared = await sceptic(['cache', 'clear', cache, '--older-than', '7'])
    expect(cleared.code, cleared.stderr).toBe(0)
    expect(cleared.stdout).toBe(`removed 168 entries older than 7 days from ${cache}\n`)
    expect(await run(cache, 'keyword-reader')).toBe('168 hits, 0 scored')
    expect(await run(cache, 'always-first')).toBe('0 hits, 168 scored')
  })

  it('refuses a bad --older-than and selection flags on stats', async () => {
    for (const bad of ['-1', 'soon', ''])
      expect((await sceptic(['cache', 'clear', join(dir, 'x'), `--older-than=${bad}`])).stderr).toMatch(/--older-than takes a number of days ≥ 0/)
    const stats = await sceptic(['cache', 'stats', join(dir, 'x'), '--scorer', 'a'])
    expect(stats.code).toBe(2)
    expect(stats.stderr).toMatch(/--scorer goes with clear/)
  })
})
