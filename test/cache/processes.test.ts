// Several processes at once, and a process killed mid-write: the store stays readable and truthful.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CacheStore } from '../../src/cache/store.ts'
import { run } from '../helpers/run.ts'
import { useTempDirs } from '../helpers/temp.ts'

const temp = useTempDirs('sceptic-proc-', { after: 'each' })

const key = (name: string) => createHash('sha256').update(name).digest().toString('latin1')

/** A child that writes `batches` batches of `size` entries (`<writer>-<i>` → [i, writer + 1, 0.5]); `batches: 0` writes forever. */
const writer = (dir: string, name: string, batches: number, size: number) => `
  import { createHash } from 'node:crypto'
  import { CacheStore } from 'vitest-sceptic/cache'
  const store = new CacheStore(${JSON.stringify(dir)})
  const key = (name) => createHash('sha256').update(name).digest().toString('latin1')
  let i = 0
  for (let b = 0; ${batches} === 0 || b < ${batches}; b++) {
    const batch = []
    for (let k = 0; k < ${size}; k++, i++) batch.push({ key: key(${JSON.stringify(name)} + '-' + i), scorer: 'ab'.repeat(16), vector: Float64Array.from([i, ${Number(name.slice(1)) + 1}, 0.5]), flags: [] })
    await store.put(batch)
  }
  await store.close()
`

/** Every entry under `<name>-<i>` for i < count holds exactly what the writer wrote. */
function expectWritten(store: CacheStore, name: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const entry = store.get(key(`${name}-${i}`))
    expect(entry, `${name}-${i}`).toBeDefined()
    expect(Array.from(entry!.vector)).toEqual([i, Number(name.slice(1)) + 1, 0.5])
  }
}

describe('the cache store across processes', () => {
  it('four processes writing at once: every entry of every writer is served, each from its own segment', async () => {
    const dir = temp()
    const results = await Promise.all(
      ['w0', 'w1', 'w2', 'w3'].map((name) => run(process.execPath, ['--input-type=module', '-e', writer(dir, name, 40, 25)], { timeoutMs: 30_000 })),
    )
    for (const result of results) expect(result.stderr + String(result.code)).toBe('0')
    expect(readdirSync(join(dir, 'segments'))).toHaveLength(4)
    const warnings: string[] = []
    const store = new CacheStore(dir, { onWarning: (m) => warnings.push(m) })
    expect(store.size).toBe(4000)
    for (const name of ['w0', 'w1', 'w2', 'w3']) expectWritten(store, name, 1000)
    expect(warnings).toEqual([])
  })

  it('a writer killed with SIGKILL mid-stream leaves a cache that opens and serves every complete entry', async () => {
    const dir = temp()
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer(dir, 'w7', 0, 500)], { stdio: 'ignore' })
    const exited = new Promise((resolve) => child.on('exit', resolve))
    try {
      const deadline = Date.now() + 20_000
      let size = 0
      while (size < 2_000_000) {
        if (Date.now() > deadline) throw new Error('the writer did not write 2 MB in 20 s')
        await new Promise((r) => setTimeout(r, 20))
        try {
          const [segment] = readdirSync(join(dir, 'segments'))
          size = segment ? statSync(join(dir, 'segments', segment)).size : 0
        } catch {
          size = 0
        }
      }
    } finally {
      child.kill('SIGKILL')
      await exited
    }
    const warnings: string[] = []
    const store = new CacheStore(dir, { onWarning: (m) => warnings.push(m) })
    const served = store.size
    expect(served).toBeGreaterThan(10_000)
    // Entries are written in order: all of 0..served-1 are there and exact, nothing beyond.
    expectWritten(store, 'w7', served)
    expect(store.get(key(`w7-${served}`))).toBeUndefined()
    // A torn tail, if the kill landed mid-write, is one line naming the file.
    for (const warning of warnings) expect(warning).toMatch(/^vitest-sceptic cache: .*\.seg: torn or corrupt record at byte \d+ .*$/)
    // And the cache stays writable: a new process appends to a segment of its own.
    await store.put([{ key: key('after'), scorer: 'ab'.repeat(16), vector: Float64Array.from([1, 2]), flags: [] }])
    await store.close()
    expect(new CacheStore(dir).get(key('after'))).toBeDefined()
  })
})
