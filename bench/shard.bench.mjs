#!/usr/bin/env node
// Shard-and-merge benchmark (npm run bench:shard): N decisions (default 100,000; 4 options,
// cyclic) scored unsharded and as 4 parts by the CLI with an instant in-process scorer, then
// `sceptic merge`. Reports whether the merged JSON equals the unsharded one (started and
// seconds aside) and the records are byte-identical, and the merge's wall time (target ≤ 10 s).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({ options: { decisions: { type: 'string', default: '100000' }, parts: { type: 'string', default: '4' } } })
const N = Number(args.decisions)
const P = Number(args.parts)
const root = fileURLToPath(new URL('..', import.meta.url))
const cli = join(root, 'dist/cli/main.js')
const work = mkdtempSync(join(tmpdir(), 'sceptic-bench-shard-'))
const texts = ['Billing', 'Technical support', 'Account and login', 'Shipping']
writeFileSync(
  join(work, 'data.jsonl'),
  Array.from({ length: N }, (_, i) =>
    JSON.stringify({ id: `d${i}`, group_id: `g${i >> 2}`, state: `Ticket ${i}: about ${texts[(i * 7) % 4]}.`, criterion: { key: 'queue', options: texts.map((text, j) => ({ id: `o${j}`, text })) }, answer_id: `o${(i * 7) % 4}` }),
  ).join('\n') + '\n',
)
// Reads the option named in the state, with a pull towards slot A: deterministic, instant.
writeFileSync(join(work, 'scorer.mjs'), "export default (requests) => requests.map((r) => r.criterion.options.map((o, slot) => (r.state.includes(o.text) ? 3 : 1) + (slot === 0 ? 1.5 : 0)))\n")

function sceptic(argv) {
  const t0 = performance.now()
  const run = spawnSync(process.execPath, [cli, ...argv], { cwd: work, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 600_000, maxBuffer: 2 ** 26 })
  if (run.status !== 0) throw new Error(`sceptic ${argv.join(' ')} exited ${run.status}: ${run.stderr}`)
  return (performance.now() - t0) / 1000
}
const common = ['--scorer', 'scorer.mjs', '--debias', 'cyclic', '--no-cache']
const whole = sceptic(['evaluate', 'data.jsonl', ...common, '--json-out', 'whole.json', '--records-out', 'whole.records.jsonl'])
const parts = Array.from({ length: P }, (_, i) => sceptic(['evaluate', 'data.jsonl', ...common, '--shard', `${i + 1}/${P}`, '--records-out', `p${i + 1}.records.jsonl`]))
const merge = sceptic(['merge', ...Array.from({ length: P }, (_, i) => `p${i + 1}.records.jsonl`), '--json-out', 'merged.json', '--records-out', 'merged.records.jsonl'])
const strip = (file) => readFileSync(join(work, file), 'utf8').replace(/"(started|seconds)": [^,\n]+/g, '"$1": 0')
const jsonSame = strip('whole.json') === strip('merged.json')
const recordsSame = readFileSync(join(work, 'whole.records.jsonl'), 'utf8') === readFileSync(join(work, 'merged.records.jsonl'), 'utf8')
process.stdout.write(
  `${N} decisions, ${P} parts: unsharded ${whole.toFixed(1)} s; parts ${parts.map((s) => s.toFixed(1)).join(' + ')} s; ` +
    `merge ${merge.toFixed(1)} s (target ≤ 10 s) ${merge <= 10 ? 'PASS' : 'MISS'}; JSON equal (times aside): ${jsonSame}; records byte-identical: ${recordsSame}\n`,
)
process.exitCode = jsonSame && recordsSame ? 0 : 1
