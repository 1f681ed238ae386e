// A process reading the cache while another is writing it must not see a problem that is not
// there: a segment being created (before its header is written) or a record being appended.
// Both were reported as bad files (`processes.test.ts` caught the first, now and then).
import * as fs from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CacheStore, readSegments } from '../../src/cache/store.ts'
import { encodeHeader, encodeRecord, type CacheEntry } from '../../src/cache/segment.ts'
import { useTempDirs } from '../helpers/temp.ts'

// Every synchronous write first runs `beforeWrite`: a reader looking at the folder at the
// worst moment, deterministically.
let beforeWrite: (() => void) | undefined
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  return {
    ...real,
    writeSync: (...args: Parameters<typeof real.writeSync>) => {
      beforeWrite?.()
      return (real.writeSync as (...a: unknown[]) => number)(...args)
    },
  }
})

const temp = useTempDirs('sceptic-readers-', { after: 'each' })
afterEach(() => {
  beforeWrite = undefined
})

const entry = (i: number): CacheEntry => ({ key: Buffer.alloc(32, i).toString('latin1'), scorer: 'ab'.repeat(16), vector: Float64Array.from([i, 1]), flags: [] })

describe('a reader beside a live writer', () => {
  it('never sees a new segment without its header', async () => {
    const dir = temp()
    const warnings: string[] = []
    beforeWrite = () => void readSegments(dir, (m) => warnings.push(m))
    const writer = new CacheStore(dir)
    await writer.put([entry(1)])
    await writer.close()
    beforeWrite = undefined
    expect(warnings).toEqual([])
    expect(fs.readdirSync(join(dir, 'segments'))).toEqual([expect.stringMatching(/\.seg$/)])
    expect(new CacheStore(dir).size).toBe(1)
  })

  it('reads a live writer\'s segment up to the record it is still appending, without a warning, and leaves it alone', () => {
    const dir = temp()
    fs.mkdirSync(join(dir, 'segments'))
    const whole = Buffer.concat([encodeHeader(), encodeRecord(entry(1)), encodeRecord(entry(2))])
    // Named as this process's segment: its writer is alive.
    const path = join(dir, 'segments', `m00000-${process.pid}-00000000.seg`)
    fs.writeFileSync(path, whole.subarray(0, whole.length - 5))
    const warnings: string[] = []
    expect(new CacheStore(dir, { onWarning: (m) => warnings.push(m) }).size).toBe(1)
    expect(warnings).toEqual([])
    expect(fs.statSync(path).size).toBe(whole.length - 5)
  })
})
