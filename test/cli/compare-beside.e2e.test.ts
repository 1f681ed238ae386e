// `sceptic compare A.json B.json` reads each --json-out result with the records beside it
// (A.records.jsonl), as `sceptic report` does, and refuses records from another run.
import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-compare-beside-')
beforeAll(async () => {
  for (const [name, scorer] of [['first', 'always-first'], ['reader', 'keyword-reader']] as const) {
    const { code, stderr } = await sceptic([
      'evaluate', 'examples/data/tickets.jsonl', '--scorer', `examples/scorers/${scorer}.mjs`, '--no-cache',
      '--json-out', join(dir, `${name}.json`), '--records-out', join(dir, `${name}.records.jsonl`),
    ])
    expect(code, stderr).toBe(0)
  }
}, 60_000)

describe('sceptic compare with --json-out files', () => {
  it('finds X.records.jsonl beside X.json and opens with the verdict', async () => {
    const { code, stdout, stderr } = await sceptic(['compare', join(dir, 'first.json'), join(dir, 'reader.json')])
    expect(code, stderr).toBe(0)
    expect(stdout.split('\n')[0]).toMatch(/^verdict {12}reader\.json is better than first\.json: accuracy \+96\.4 pp/)
    expect(stdout).toMatch(/^decisions {10}56 paired/m)
  })

  it('refuses records beside a result that are another run\'s', async () => {
    const swapped = join(dir, 'swapped.json')
    await copyFile(join(dir, 'reader.json'), swapped)
    await copyFile(join(dir, 'first.records.jsonl'), join(dir, 'swapped.records.jsonl'))
    const { code, stdout, stderr } = await sceptic(['compare', join(dir, 'first.json'), swapped])
    expect(code).toBe(3)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/swapped\.records\.jsonl.*not from the same run as .*swapped\.json/)
  })

  it('without records beside, says how to write them', async () => {
    const lone = join(dir, 'lone.json')
    await copyFile(join(dir, 'reader.json'), lone)
    const { code, stderr } = await sceptic(['compare', lone, join(dir, 'reader.json')])
    expect(code).toBe(3)
    expect(stderr).toMatch(/lone\.json: has no "records" array .*--json-out X\.json --records-out X\.records\.jsonl/)
  })
})
