import { copyFile, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

// End to end: the built binary writes runs with evaluate, then report reads them.
const dir = useTempDir('sceptic-report-')
beforeAll(async () => {
  for (const [name, scorer, data] of [
    ['reader', 'examples/scorers/keyword-reader.mjs', 'examples/data/tickets.jsonl'],
    ['first', 'examples/scorers/always-first.mjs', 'examples/data/tickets.jsonl'],
    ['judge', 'examples/scorers/judge-first-bias.mjs', 'examples/data/judge.jsonl'],
  ] as const) {
    const { code, stderr } = await sceptic([
      'evaluate', data, '--scorer', scorer, '--debias', 'cyclic',
      '--json-out', join(dir, `${name}.json`), '--records-out', join(dir, `${name}.records.jsonl`),
    ])
    expect(code, stderr).toBe(0)
  }
})

describe('sceptic report', () => {
  it('writes one run, picking up X.records.jsonl beside X.json', async () => {
    const out = join(dir, 'one.html')
    const { code, stderr } = await sceptic(['report', join(dir, 'reader.json'), '--html-out', out])
    expect(code, stderr).toBe(0)
    expect(stderr).toMatch(/wrote .*one\.html \(1 run, records for it\)/)
    const html = await readFile(out, 'utf8')
    expect(html).toMatch(/data-chart="reliability"/)
    expect(html).toContain('reader.json')
    const json = JSON.parse(await readFile(join(dir, 'reader.json'), 'utf8'))
    expect(html).toContain(`<span class="value">${(json.balancedAccuracy * 100).toFixed(1)}%</span>`)
  })

  it('--no-records leaves the records out, and the page says what is missing', async () => {
    const out = join(dir, 'bare.html')
    const { code } = await sceptic(['report', join(dir, 'reader.json'), '--no-records', '-o', out])
    expect(code).toBe(0)
    expect(await readFile(out, 'utf8')).toMatch(/The reliability diagram needs the records of this run/)
  })

  it('two runs with --records in order: side by side and the paired table', async () => {
    // Copies without the conventional names, so only --records can find them.
    await copyFile(join(dir, 'first.records.jsonl'), join(dir, 'a.jsonl'))
    await copyFile(join(dir, 'reader.records.jsonl'), join(dir, 'b.jsonl'))
    const out = join(dir, 'two.html')
    const { code, stderr } = await sceptic([
      'report', join(dir, 'first.json'), join(dir, 'reader.json'), '--records', join(dir, 'a.jsonl'), '--records', join(dir, 'b.jsonl'), '--html-out', out, '--title', 'Base vs tuned',
    ])
    expect(code, stderr).toBe(0)
    const html = await readFile(out, 'utf8')
    expect(html).toContain('<title>Base vs tuned</title>')
    expect(html.match(/<section class="run"/g)).toHaveLength(2)
    expect(html).toMatch(/class="paired-table" data-n="56"/)
  })

  it('the judge run: five letters, and order consistency below 100%', async () => {
    const out = join(dir, 'judge.html')
    expect((await sceptic(['report', join(dir, 'judge.json'), '-o', out])).code).toBe(0)
    const html = await readFile(out, 'utf8')
    // The letters chart, then the accuracy-by-gold-slot chart of the order-robustness block: five letters each.
    const letters = html.slice(html.indexOf('data-block="letters"'), html.indexOf('data-block="robustness"'))
    expect([...letters.matchAll(/<g class="column" data-label="([A-E])"/g)].map((m) => m[1])).toEqual(['A', 'B', 'C', 'D', 'E'])
    const slots = html.slice(html.indexOf('data-block="robustness"'), html.indexOf('data-block="reliability"'))
    expect([...slots.matchAll(/<g class="column" data-label="([A-E])"/g)].map((m) => m[1])).toEqual(['A', 'B', 'C', 'D', 'E'])
    const json = JSON.parse(await readFile(join(dir, 'judge.json'), 'utf8'))
    expect(json.orderConsistency).toBeLessThan(1)
    expect(Object.keys(json.accuracyByGoldSlot)).toEqual(['A', 'B', 'C', 'D', 'E'])
    expect(json.circularAccuracy).toBeLessThanOrEqual(json.orderConsistency)
  })

  it('is listed in the help', async () => {
    const { stdout } = await sceptic(['--help'])
    expect(stdout).toMatch(/sceptic report RUN\.json \[RUN2\.json\] --html-out FILE\.html/)
  })

  it.each([
    [['report'], 2, /report takes one or two RUN\.json files/],
    [['report', 'x.json'], 2, /give the output file with --html-out FILE\.html \(or -o\)/],
    [['report', 'READER', '--output', 'OUT'], 2, /UsageError: --output is now --html-out \(every output file is --<what>-out\)/],
    [['report', 'a.json', 'b.json', 'c.json', '-o', 'o.html'], 2, /report takes one or two/],
    [['report', 'READER', '-o', 'OUT', '--records', 'a', '--records', 'b'], 2, /--records was given 2 times for 1 run/],
    [['report', 'READER', '-o', 'OUT', '--records', 'a', '--no-records'], 2, /contradict/],
    [['report', 'missing.json', '-o', 'OUT'], 3, /DataError: missing\.json: no such file/],
    [['report', 'NOTJSON', '-o', 'OUT'], 3, /DataError: .*not-json\.json: not JSON/],
    [['report', 'READER', '-o', 'OUT', '--records', 'JUDGERECORDS'], 3, /judge\.records\.jsonl: has 35 records but .*reader\.json has n = 56/],
  ])('%j exits %i with one line', async (args, exit, message) => {
    await writeFile(join(dir, 'not-json.json'), 'nope')
    const resolved = args.map((a) =>
      a === 'READER' ? join(dir, 'reader.json') : a === 'OUT' ? join(dir, 'x.html') : a === 'NOTJSON' ? join(dir, 'not-json.json') : a === 'JUDGERECORDS' ? join(dir, 'judge.records.jsonl') : a,
    )
    const { code, stderr } = await sceptic(resolved)
    expect(code).toBe(exit)
    expect(stderr).toMatch(message)
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })
})
