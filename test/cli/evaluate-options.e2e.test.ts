import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

// The built CLI reaches every evaluate option: --pride-fraction, --no-statistics, recorded reducer names.
const DATA = 'examples/data/tickets.jsonl' // 56 labelled: 28 with 4 options, 28 with 2
const FIRST = 'examples/scorers/always-first.mjs'

const dir = useTempDir('sceptic-cli-options-')

async function evaluate(name: string, args: string[]): Promise<Record<string, any>> {
  const json = join(dir, `${name}.json`)
  const { code, stderr } = await sceptic(['evaluate', DATA, '--scorer', FIRST, '--no-cache', '--json-out', json, ...args])
  expect(stderr).not.toMatch(/Error/)
  expect(code).toBe(0)
  return JSON.parse(await readFile(json, 'utf8'))
}

describe('sceptic evaluate options', () => {
  it('--pride-fraction 0.5 samples round(0.5·28) = 14 decisions per option count (default 0.05: 1 each)', async () => {
    const half = await evaluate('half', ['--debias', 'pride', '--pride-fraction', '0.5'])
    expect(half.manifest.pride.fraction).toBe(0.5)
    expect(half.manifest.pride.sampled).toHaveLength(28)
    const fallback = await evaluate('default', ['--debias', 'pride'])
    expect(fallback.manifest.pride.fraction).toBe(0.05)
    expect(fallback.manifest.pride.sampled).toHaveLength(2)
  })

  it('--no-statistics leaves the JSON without statistics; without it they are there', async () => {
    const without = await evaluate('without', ['--debias', 'none', '--no-statistics'])
    expect(without).not.toHaveProperty('statistics')
    const withStats = await evaluate('with', ['--debias', 'none'])
    expect(withStats).toHaveProperty('statistics')
  })

  it('--reducer accepts the names the manifest records (pass_at_2, at_least_2, at_least_2_ge_0.5) and records them as given', async () => {
    for (const reducer of ['pass_at_2', 'at_least_2', 'at_least_2_ge_0.5']) {
      const result = await evaluate(reducer, ['--debias', 'none', '--epochs', '2', '--reducer', reducer])
      expect(result.manifest).toMatchObject({ reducer, epochs: 2 })
    }
  })

  it.each([
    [['--debias', 'pride', '--pride-fraction', '0'], /--pride-fraction must be a number in \(0, 1\], got "0"/],
    [['--debias', 'pride', '--pride-fraction', '1.5'], /--pride-fraction must be a number in \(0, 1\], got "1\.5"/],
    [['--debias', 'pride', '--pride-fraction', 'half'], /--pride-fraction must be a number in \(0, 1\], got "half"/],
    [['--pride-fraction', '0.5'], /--pride-fraction needs --debias pride/],
    [['--reducer', 'pass_at_0'], /reducer "pass_at_0" is not known/],
  ])('%j exits 2 with one line', async (args, message) => {
    const { code, stdout, stderr } = await sceptic(['evaluate', DATA, '--scorer', FIRST, '--no-cache', ...args])
    expect(code).toBe(2)
    const lines = stderr.trim().split('\n').filter((line) => !line.startsWith('vitest-sceptic: skipping'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(message)
    expect(stdout).toBe('')
  })
})
