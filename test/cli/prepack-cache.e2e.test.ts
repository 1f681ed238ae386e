// `sceptic evaluate --prepack-cache DIR`: the first run writes ORT's packed weights, the next
// loads them, the manifest says which, and the two runs' records are the same.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../helpers/run.ts'
import { useTempDirs } from '../helpers/temp.ts'

const MODEL = join(ROOT, 'examples/models/tiny')
const TICKETS = join(ROOT, 'examples/data/tickets.jsonl')
const dir = useTempDirs('sceptic-prepack-cli-')

describe('sceptic evaluate --prepack-cache', () => {
  it('writes on the first run, loads on the next, and scores the same', async () => {
    const cache = join(dir(), 'packed')
    const run = async (name: string) => {
      const out = join(dir(), `${name}.json`)
      const { code, stderr } = await sceptic(['evaluate', TICKETS, '--model', MODEL, '--workers', '1', '--no-cache', '--prepack-cache', cache, '--json-out', out])
      expect(code, stderr).toBe(0)
      return JSON.parse(readFileSync(out, 'utf8'))
    }
    const first = await run('first')
    const second = await run('second')
    expect(JSON.stringify(first)).toMatch(/"prepacked":"written to [^"]*packed\/[0-9a-f]{32}"/)
    expect(JSON.stringify(second)).toMatch(/"prepacked":"loaded from [^"]*packed\/[0-9a-f]{32}"/)
    expect(second.records).toEqual(first.records)
    expect(readdirSync(cache).filter((name) => !/^[0-9a-f]{32}$/.test(name))).toEqual(['CACHEDIR.TAG'])
  })

  it('needs --model', async () => {
    const { code, stderr } = await sceptic(['evaluate', TICKETS, '--scorer', join(ROOT, 'test/fixtures/cache/slow-scorer.mjs'), '--prepack-cache', join(dir(), 'x')])
    expect(code).toBe(2)
    expect(stderr).toContain('--prepack-cache applies only to --model DIR')
  })
})
