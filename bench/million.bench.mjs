// npm run bench:million: one run of 10^6 decisions (3–6 options, cyclic) with the trivial
// in-process scorer of bench/evaluate.bench.mjs (its measuring child, reused), so what is
// timed is the evaluator alone. It ran out of stack past ~125,000 decisions while one call
// took an argument per decision; this size shows it stays gone. Prints time and peak RSS.
// BENCH_DECISIONS=N picks another size.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const n = Number(process.env.BENCH_DECISIONS ?? 1_000_000)
const child = fileURLToPath(new URL('./evaluate.bench.mjs', import.meta.url))
const out = spawnSync(process.execPath, ['--expose-gc', child, '--child', String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 })
if (out.status !== 0) {
  process.stderr.write(out.stderr)
  process.exit(1)
}
const r = JSON.parse(out.stdout)
const line = (label, text) => console.log(`${label.padEnd(22)}${text}`)
line('decisions', `${r.n.toLocaleString('en')} (${r.orderings.toLocaleString('en')} orderings scored, cyclic)`)
line('evaluate', `${r.seconds.toFixed(1)} s (${Math.round(r.n / r.seconds).toLocaleString('en')} decisions/s)`)
line('statistics', `${r.statsSeconds.toFixed(1)} s (${r.resamples} resamples)`)
line('RSS holding the input', `${r.inputRss.toFixed(0)} MB`)
line('peak RSS', `${r.rss.toFixed(0)} MB`)
