import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

// End to end on the built CLI (`npx tsup` first): real files, real exit codes.
const DATA = 'examples/data/tickets.jsonl'
const READER = 'examples/scorers/keyword-reader.mjs'
const FIRST = 'examples/scorers/always-first.mjs'

const dir = useTempDir('sceptic-compare-')
let readerRecords: string
let firstRecords: string
let readerJson: string

beforeAll(async () => {
  readerRecords = join(dir, 'reader.jsonl')
  firstRecords = join(dir, 'first.jsonl')
  readerJson = join(dir, 'reader.json')
  const runs = await Promise.all([
    sceptic(['evaluate', DATA, '--scorer', READER, '--debias', 'cyclic', '--records-out', readerRecords, '--json-out', readerJson]),
    sceptic(['evaluate', DATA, '--scorer', FIRST, '--debias', 'cyclic', '--records-out', firstRecords]),
  ])
  for (const run of runs) expect(run.code, run.stderr).toBe(0)
})

describe('sceptic compare', () => {
  it('prints the paired table, exact McNemar, the bootstrap interval and the order-consistency change', async () => {
    const { code, stdout, stderr } = await sceptic(['compare', firstRecords, readerRecords, '--data', DATA, '--seed', '3'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatch(/^compare {12}first\.jsonl {2}vs {2}reader\.jsonl$/m)
    expect(stdout).toMatch(/^decisions {10}56 paired/m)
    expect(stdout).toMatch(/^first\.jsonl right\s+(\d+)\s+(\d+)$/m)
    expect(stdout).toMatch(/^McNemar \(exact\) {4}p [=<] [\d.]+ two-sided {3}mid-p [=<] [\d.]+/m)
    expect(stdout).toMatch(/^balanced accuracy .*Δ \+[\d.]+ pp {2}\[\+[\d.]+, \+[\d.]+\] pp .*resamples of groups, seed 3\)$/m)
    expect(stdout).toMatch(/^order consistency  first\.jsonl 0\.0% {3}reader\.jsonl 100\.0%/m)
    // The verdict opens the block and names every significant paired change, not only hits.
    expect(stdout.split('\n')[0]).toMatch(/^verdict {12}reader\.jsonl is better than first\.jsonl: accuracy \+[\d.]+ pp \(exact McNemar p < 0\.0001\), balanced accuracy \+[\d.]+ pp .*, order consistency \+100\.0 pp \(exact p < 0\.0001\), decisions answered by position −100\.0 pp/)
  })

  it('a file compared with itself: no difference, p = 1', async () => {
    const out = join(dir, 'self.json')
    const { code, stdout } = await sceptic(['compare', readerRecords, readerRecords, '--json-out', out])
    expect(code).toBe(0)
    expect(stdout).toMatch(/p = 1 two-sided {3}mid-p = 1 {3}\(0 discordant pairs\)/)
    expect(stdout).toMatch(/verdict {12}no difference/)
    const json = JSON.parse(await readFile(out, 'utf8'))
    expect(json.mcnemar.pTwoSided).toBe(1)
    expect(json.balancedAccuracy.interval).toMatchObject({ lower: 0, upper: 0 })
  })

  it('accepts a JSON document that embeds records, and refuses differing fingerprints saying so', async () => {
    const records = (await readFile(readerRecords, 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
    const report = JSON.parse(await readFile(readerJson, 'utf8'))
    const embedded = join(dir, 'embedded.json')
    const other = join(dir, 'other.json')
    await writeFile(embedded, JSON.stringify({ ...report, records }))
    await writeFile(other, JSON.stringify({ ...report, manifest: { ...report.manifest, fingerprint: '0000000000000000' }, records }))
    const ok = await sceptic(['compare', embedded, firstRecords])
    expect(ok.code).toBe(0)
    const refused = await sceptic(['compare', embedded, other])
    expect(refused.code).toBe(3)
    expect(refused.stdout).toBe('')
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).toMatch(/DataError: fingerprints differ \(embedded\.json: [0-9a-f]{16}, other\.json: 0000000000000000\)/)
  })

  it('refuses records of different decisions, a --json-out report without records, and bad usage', async () => {
    const fewer = join(dir, 'fewer.jsonl')
    await writeFile(fewer, (await readFile(readerRecords, 'utf8')).split('\n').slice(1).join('\n'))
    const different = await sceptic(['compare', readerRecords, fewer])
    expect(different.code).toBe(3)
    expect(different.stderr).toMatch(/record sets differ: 1 only in reader\.jsonl \(e\.g\. "t-001-queue"\)/)

    const noRecords = await sceptic(['compare', readerJson, readerRecords])
    expect(noRecords.code).toBe(3)
    expect(noRecords.stderr).toMatch(/reader\.json: has no "records" array .*--records-out/)

    const broken = join(dir, 'broken.jsonl')
    await writeFile(broken, '{"id": "x", "gold": "a"}\n')
    expect((await sceptic(['compare', broken, readerRecords])).stderr).toMatch(/broken\.jsonl:1, field "criterion": not a decision record/)

    const usage = await sceptic(['compare', readerRecords])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/compare takes two result files/)
    expect((await sceptic(['compare', readerRecords, join(dir, 'missing.jsonl')])).stderr).toMatch(/missing\.jsonl: cannot read result file: ENOENT/)
  })
})

describe('sceptic split', () => {
  it('splits by group: no group on both sides, every line kept verbatim, counts printed', async () => {
    const train = join(dir, 'train.jsonl')
    const evalFile = join(dir, 'eval.jsonl')
    const { code, stdout, stderr } = await sceptic(['split', DATA, '--eval-fraction', '0.2', '--seed', '0', '--train-out', train, '--eval-out', evalFile])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const original = (await readFile(DATA, 'utf8')).split('\n').filter((l) => l.trim() !== '')
    const trainLines = (await readFile(train, 'utf8')).trim().split('\n')
    const evalLines = (await readFile(evalFile, 'utf8')).trim().split('\n')
    expect(trainLines.length + evalLines.length).toBe(original.length)
    expect([...trainLines, ...evalLines].sort()).toEqual([...original].sort())
    const groupOf = (line: string) => {
      const d = JSON.parse(line)
      return d.group_id ?? `state:${d.state}`
    }
    const trainGroups = new Set(trainLines.map(groupOf))
    const evalGroups = new Set(evalLines.map(groupOf))
    expect([...evalGroups].filter((g) => trainGroups.has(g))).toEqual([])
    expect(stdout).toMatch(new RegExp(`^train\\s+${trainLines.length} decisions\\s+${trainGroups.size} groups`, 'm'))
    expect(stdout).toMatch(new RegExp(`^eval\\s+${evalLines.length} decisions\\s+${evalGroups.size} groups`, 'm'))
    // About a fifth of the groups go to eval.
    const total = trainGroups.size + evalGroups.size
    expect(evalGroups.size).toBe(Math.round(total * 0.2))
  })

  it('is deterministic per seed', async () => {
    const outs = [0, 1, 2].map((i) => [join(dir, `t${i}.jsonl`), join(dir, `e${i}.jsonl`)] as const)
    await sceptic(['split', DATA, '--eval-fraction', '0.3', '--seed', '5', '--train-out', outs[0]![0], '--eval-out', outs[0]![1]])
    await sceptic(['split', DATA, '--eval-fraction', '0.3', '--seed', '5', '--train-out', outs[1]![0], '--eval-out', outs[1]![1]])
    await sceptic(['split', DATA, '--eval-fraction', '0.3', '--seed', '6', '--train-out', outs[2]![0], '--eval-out', outs[2]![1]])
    const [a, b, c] = await Promise.all(outs.map(([, e]) => readFile(e, 'utf8')))
    expect(a).toBe(b)
    expect(c).not.toBe(a)
  })

  it.each([
    [['split', DATA, '--train-out', 'x', '--eval-out', 'y'], 2, /--eval-fraction is required/],
    [['split', DATA, '--eval-fraction', '1.5', '--train-out', 'x', '--eval-out', 'y'], 2, /--eval-fraction must be a number between 0 and 1/],
    [['split', DATA, '--eval-fraction', '0.2', '--train-out', 'x'], 2, /--train-out and --eval-out are both required/],
    [['split', DATA, '--eval-fraction', '0.2', '--out-train', 'x', '--out-eval', 'y'], 2, /UsageError: --out-train is now --train-out \(every output file is --<what>-out\)/],
    [['split', DATA, '--eval-fraction', '0.2', '--train-out', DATA, '--eval-out', 'y'], 2, /refusing to overwrite the input file/],
    [['split', 'test/data/bad/missing-state.jsonl', '--eval-fraction', '0.2', '--train-out', 'x', '--eval-out', 'y'], 3, /missing-state\.jsonl:3, field "state": is required/],
  ])('%j → exit %i', async (args, exitCode, message) => {
    const { code, stderr } = await sceptic(args)
    expect(code).toBe(exitCode)
    expect(stderr).toMatch(message)
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })

  it('refuses a file with a single group (a split would need it on both sides)', async () => {
    const one = join(dir, 'one-group.jsonl')
    const line = (id: string) => JSON.stringify({ id, state: 's', group_id: 'g', criterion: { key: 'k', options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] }, answer_id: 'a' })
    await writeFile(one, `${line('1')}\n${line('2')}\n`)
    const { code, stderr } = await sceptic(['split', one, '--eval-fraction', '0.5', '--train-out', join(dir, 'x'), '--eval-out', join(dir, 'y')])
    expect(code).toBe(3)
    expect(stderr).toMatch(/has 1 group; a split with no group on both sides needs at least 2/)
  })
})
