// The built CLI on run JSON and part files with a field of the wrong type: exit 3 and one
// `sceptic: DataError:` line naming the file and field — no stack trace, never exit 0.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../../helpers/run.ts'
import { useTempDir } from '../../helpers/temp.ts'

const dir = useTempDir('sceptic-run-json-e2e-')
const OPTIONS = ['a', 'b', 'c'].map((id) => ({ id, text: id }))

beforeAll(async () => {
  writeFileSync(join(dir, 'data.jsonl'), Array.from({ length: 12 }, (_, i) => JSON.stringify({ id: `d${i}`, state: `s${i}`, criterion: { key: 'k', options: OPTIONS }, answer_id: OPTIONS[i % 3]!.id })).join('\n') + '\n')
  writeFileSync(join(dir, 'scorer.mjs'), 'export default (rs) => rs.map((r, i) => r.criterion.options.map((o, k) => (k === i % 3 ? 0.6 : 0.2)))\n')
  const whole = await sceptic(['evaluate', join(dir, 'data.jsonl'), '--scorer', join(dir, 'scorer.mjs'), '--json-out', join(dir, 'run.json')])
  expect(whole.code, whole.stderr).toBe(0)
  const part = await sceptic(['evaluate', join(dir, 'data.jsonl'), '--scorer', join(dir, 'scorer.mjs'), '--shard', '1/1', '--records-out', join(dir, 'p.records.jsonl')])
  expect(part.code, part.stderr).toBe(0)
}, 60_000)

/** One line on stderr, a DataError, exit 3. */
function expectOneDataErrorLine(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(3)
  const lines = result.stderr.trim().split('\n')
  expect(lines, result.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^sceptic: DataError: /)
  expect(lines[0]).toMatch(pattern)
}

describe('sceptic report and merge on a field of the wrong type', () => {
  const cases: [string, (json: Record<string, any>) => void, RegExp][] = [
    ['statistics.eceNote a string (was a TypeError stack trace)', (json) => (json.statistics.eceNote = 'x'), /run-bad\.json, field "statistics\.eceNote"/],
    ['manifest.tied null (was a TypeError stack trace)', (json) => (json.manifest.tied = null), /field "manifest\.tied"/],
    ['accuracy 1e308 (was read, exit 0)', (json) => (json.accuracy = 1e308), /field "accuracy": must be a share in \[0, 1\]/],
  ]
  it.each(cases)('report: %s', async (_, mutate, pattern) => {
    const json = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))
    mutate(json)
    writeFileSync(join(dir, 'run-bad.json'), JSON.stringify(json))
    expectOneDataErrorLine(await sceptic(['report', join(dir, 'run-bad.json'), '--html-out', join(dir, 'out.html')]), pattern)
  })

  it('merge: a part file header with a string count', async () => {
    const lines = readFileSync(join(dir, 'p.records.shard.jsonl'), 'utf8').trim().split('\n')
    const header = JSON.parse(lines[0]!)
    header.rows = 'twelve'
    writeFileSync(join(dir, 'q.records.shard.jsonl'), [JSON.stringify(header), ...lines.slice(1)].join('\n') + '\n')
    writeFileSync(join(dir, 'q.records.jsonl'), readFileSync(join(dir, 'p.records.jsonl')))
    expectOneDataErrorLine(await sceptic(['merge', join(dir, 'q.records.jsonl')]), /q\.records\.shard\.jsonl/)
  })
})

describe('sceptic compare --json-out over the records file it read beside a result', () => {
  it('exit 2, one line, the records file keeps its bytes', async () => {
    const records = readFileSync(join(dir, 'p.records.jsonl'), 'utf8')
    writeFileSync(join(dir, 'x.json'), readFileSync(join(dir, 'run.json')))
    writeFileSync(join(dir, 'x.records.jsonl'), records)
    const result = await sceptic(['compare', join(dir, 'x.json'), join(dir, 'p.records.jsonl'), '--json-out', join(dir, 'x.records.jsonl')])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(/--json-out .*x\.records\.jsonl: refusing to overwrite the input file/)
    expect(readFileSync(join(dir, 'x.records.jsonl'), 'utf8')).toBe(records)
  })
})
