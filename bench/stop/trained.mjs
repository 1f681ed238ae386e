#!/usr/bin/env node
// The order-robustness panel and the time to verdict on the trained example models (alone: node
// bench/stop/trained.mjs; needs dist/; npm run bench:trained runs it last). The reader and the
// biased reader (make-trained-models) on the held-out triage set (80 decisions, cyclic), every
// figure from `sceptic evaluate` spawned as a user runs it, with --no-cache:
// 1. The panel, from a full run of each model: circular, per ordering, gold at slot, slot gap,
//    slot bias (χ², p, Cramér's V and its interval), CKLD, letters picked, and the verdict.
// 2. Stopping early, per gate: the full run's verdict, then --stop-early under --seeds seeds (the
//    seed orders the decisions): decisions scored (median, range), the verdicts reached, and wall
//    and CPU seconds from spawn to exit (startup included; CPU of every thread), the median over
//    the seeds against the median of --rounds full runs interleaved with them.
// The machine is shared: the load is printed. Options: --seeds N (default 10), --rounds N (default 3).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

process.env.ORT_DISABLE_TELEMETRY ??= '1'
const { values: opts } = parseArgs({ options: { seeds: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } } })
const seeds = Number(opts.seeds)
const rounds = Number(opts.rounds)
const root = fileURLToPath(new URL('../..', import.meta.url))
const heldOut = join(root, 'examples/data/triage-heldout.jsonl')
const MODELS = ['reader', 'biased']
const GATES = [['orderConsistency=0.9'], ['balancedAccuracy=0.9', 'orderConsistency=0.9']]
// Written by the spawned CLI at exit: its CPU seconds, worker threads included.
const USAGE_HOOK = `data:text/javascript,${encodeURIComponent("process.on('exit',()=>{const u=process.resourceUsage();process.getBuiltinModule('node:fs').writeFileSync(process.env.SCEPTIC_BENCH_USAGE,JSON.stringify({cpu:(u.userCPUTime+u.systemCPUTime)/1e6}))})")}`

const made = spawnSync(process.execPath, ['scripts/make-trained-models.mjs'], { cwd: root, encoding: 'utf8' })
if (made.status !== 0) throw new Error(made.stderr)

const temp = mkdtempSync(join(tmpdir(), 'sceptic-trained-verdict-'))
let runs = 0
/** One `sceptic evaluate` run: its JSON result, exit code, wall and CPU seconds. */
function evaluate(model, args) {
  const json = join(temp, `${runs}.json`)
  const usage = join(temp, `${runs++}.usage.json`)
  const start = performance.now()
  const r = spawnSync(process.execPath, ['--import', USAGE_HOOK, 'dist/cli/main.js', 'evaluate', heldOut, '--model', join(root, 'examples/models', model), '--no-cache', '--json-out', json, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SCEPTIC_BENCH_USAGE: usage },
  })
  const wall = (performance.now() - start) / 1000
  if (r.status !== 0 && r.status !== 1) throw new Error(`sceptic evaluate ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  const verdict = /^verdict +(.*)$/m.exec(r.stdout)?.[1] ?? '?'
  return { code: r.status, wall, cpu: JSON.parse(readFileSync(usage, 'utf8')).cpu, result: JSON.parse(readFileSync(json, 'utf8')), verdict }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]
const pct = (x) => `${(100 * x).toFixed(1)}%`
const letters = (shares) => Object.entries(shares).map(([k, v]) => `${k} ${Math.round(100 * v)}%`).join(', ')
const pOf = (p) => (p < 1e-4 ? 'p < 0.0001' : `p = ${p.toPrecision(3)}`)

const loadBefore = loadavg()[0]
const panelLines = ['| model | verdict | circular | per ordering | gold at slot | slot gap | slot bias | CKLD | letters picked |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
const stopLines = [
  '| model | gate | full run: verdict | stop-early: decisions scored, median (range) | verdicts over the seeds | wall s, stop-early / full | CPU s, stop-early / full |',
  '| --- | --- | --- | --- | --- | --- | --- |',
]
try {
  for (const model of MODELS) {
    const { result: r, verdict } = evaluate(model, [])
    const b = r.slotBias
    panelLines.push(
      `| ${model} | ${verdict} | ${pct(r.circularAccuracy)} | ${pct(r.orderingAccuracy)} | ${letters(r.accuracyByGoldSlot)} | ${(100 * r.slotSensitivityGap).toFixed(1)} pp | χ² ${b.chiSquare.toFixed(1)}, ${pOf(b.p)}, V ${b.cramersV.toFixed(2)} [${b.cramersVInterval.map((v) => v.toFixed(2)).join(', ')}] | ${r.ckld.toFixed(3)} | ${letters(r.letterDistribution)} |`,
    )
  }
  for (const gate of GATES) {
    const flags = gate.flatMap((g) => ['--threshold', g])
    for (const model of MODELS) {
      const early = []
      const full = []
      for (let seed = 0; seed < seeds; seed++) {
        early.push(evaluate(model, [...flags, '--stop-early', '--seed', String(seed)]))
        if (seed < rounds) full.push(evaluate(model, [...flags, '--seed', String(seed)]))
      }
      const scored = early.map((e) => e.result.stopEarly.scored)
      const verdicts = new Map()
      for (const e of early) {
        const v = Object.entries(e.result.stopEarly.verdicts).map(([k, x]) => `${k} ${x}`).join(', ')
        verdicts.set(v, (verdicts.get(v) ?? 0) + 1)
      }
      const fullVerdict = full[0].code === 0 ? 'pass' : 'fail'
      stopLines.push(
        `| ${model} | ${gate.map((g) => g.replace('=', ' ≥ ')).join(', ')} | ${fullVerdict} | ${median(scored)} of 80 (${Math.min(...scored)}–${Math.max(...scored)}) | ${[...verdicts].map(([v, n]) => `${v}: ${n}/${seeds}`).join('; ')} | ${median(early.map((e) => e.wall)).toFixed(1)} / ${median(full.map((e) => e.wall)).toFixed(1)} | ${median(early.map((e) => e.cpu)).toFixed(2)} / ${median(full.map((e) => e.cpu)).toFixed(2)} |`,
      )
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true })
}
console.log(`${cpus()[0]?.model ?? 'CPU'}, ${cpus().length} cores; load ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`)
console.log(`held-out set: 80 decisions, cyclic; ${seeds} seeds stopping early, ${rounds} full runs per gate and model; sceptic evaluate --no-cache\n`)
console.log('Order robustness (a full run of each model)\n')
console.log(panelLines.join('\n'))
console.log('\nStopping early (wall and CPU from spawn to exit, startup included; medians)\n')
console.log(stopLines.join('\n'))
