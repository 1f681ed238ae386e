#!/usr/bin/env node
// Stopping-early benchmark (npm run bench:stop): seeded simulations of the looks a run with
// stopEarly makes (the built SequentialMonitor, a look every batch), per metric and scenario.
// At the boundary (true rate = the bound) the share of runs that pass early must stay ≤ alpha;
// on a clear regression (15 points below) and a clear pass (15 points above) it reports the
// mean share of decisions scored before the stop (goals: ≤ 40% and ≤ 50%).
import { parseArgs } from 'node:util'
import { DEFAULT_STOP_ALPHA, lookStops, SequentialMonitor } from '../dist/core/index.js'
import { wilsonInterval } from '../dist/stats/index.js'
import { gateBoundary } from './stop/gate-boundary.mjs'

/** mulberry32, as the package's seeded PRNG. */
function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '2000' }, decisions: { type: 'string', default: '1000' }, alpha: { type: 'string', default: String(DEFAULT_STOP_ALPHA) } } })
const RUNS = Number(args.runs)
const N = Number(args.decisions)
const ALPHA = Number(args.alpha)
const BATCH = Math.min(64, Math.max(8, Math.ceil(N / 50))) // the evaluator's default batch
const CLASSES = [
  { gold: 'a', share: 0.4, offset: 0.1 },
  { gold: 'b', share: 0.3, offset: -0.1 },
  { gold: 'c', share: 0.2, offset: 0.05 },
  { gold: 'd', share: 0.1, offset: -0.05 },
]

/** A decision's observation for a metric at true rate `rate`. */
function draw(metric, rate, random) {
  if (metric === 'balancedAccuracy') {
    // Unequal classes, unequal recalls, their mean exactly `rate`.
    let u = random()
    const cls = CLASSES.find((c) => (u -= c.share) < 0) ?? CLASSES[CLASSES.length - 1]
    return { criterion: 'k', gold: cls.gold, hit: random() < rate + cls.offset, consistent: true, circular: null }
  }
  const success = random() < rate
  return { criterion: 'k', gold: 'a', hit: metric === 'accuracy' ? success : true, consistent: metric === 'orderConsistency' ? success : true, circular: null }
}

function simulate(metric, bound, rate, seed) {
  const labelled = metric === 'balancedAccuracy' ? CLASSES.map((c) => ({ criterion: 'k', gold: c.gold })) : [{ criterion: 'k', gold: 'a' }]
  let passes = 0
  let fails = 0
  let scored = 0
  for (let run = 0; run < RUNS; run++) {
    const random = mulberry32(seed * 100_003 + run)
    const monitor = new SequentialMonitor({ [metric]: bound }, ALPHA, labelled)
    let n = 0
    let verdict = 'undecided'
    while (n < N) {
      for (let i = 0; i < BATCH && n < N; i++, n++) monitor.observe(draw(metric, rate, random))
      const look = monitor.look()
      verdict = look.verdicts[metric]
      if (lookStops(look)) break
    }
    if (verdict === 'pass') passes++
    if (verdict === 'fail') fails++
    scored += n / N
  }
  return { pass: passes / RUNS, fail: fails / RUNS, scored: scored / RUNS }
}

const METRICS = [
  ['accuracy', 0.7],
  ['balancedAccuracy', 0.7],
  ['orderConsistency', 0.8],
]
const t0 = performance.now()
const sigma = Math.sqrt((ALPHA * (1 - ALPHA)) / RUNS)
const pct = (x) => `${(x * 100).toFixed(1)}%`
console.log(`stopEarly bench: ${RUNS} seeded runs per cell, ${N} decisions, a look every ${BATCH}, α = ${ALPHA} (3σ = ${pct(3 * sigma)})`)
console.log('')
console.log('| metric | bound | false pass at the boundary | regression −15: fail / scored | clear pass +15: pass / scored |')
console.log('| --- | --- | --- | --- | --- |')
let ok = true
METRICS.forEach(([metric, bound], m) => {
  const boundary = simulate(metric, bound, bound, 3 * m + 1)
  const regression = simulate(metric, bound, bound - 0.15, 3 * m + 2)
  const clear = simulate(metric, bound, Math.min(1, bound + 0.15), 3 * m + 3)
  ok &&= boundary.pass <= ALPHA + 3 * sigma
  console.log(
    `| ${metric} | ${bound} | ${pct(boundary.pass)} (scored ${pct(boundary.scored)}) | ${pct(regression.fail)} / ${pct(regression.scored)} | ${pct(clear.pass)} / ${pct(clear.scored)} |`,
  )
})
// What peeking costs: a fixed-sample 95% Wilson interval read after every batch, stopping at the first pass.
let peeked = 0
for (let run = 0; run < RUNS; run++) {
  const random = mulberry32(999_331 + run)
  let hits = 0
  for (let n = 1; n <= N; n++) {
    if (random() < 0.7) hits++
    if (n % BATCH === 0 && wilsonInterval(hits, n, 0.95).lower >= 0.7) {
      peeked++
      break
    }
  }
}
console.log('')
console.log(`peeking instead: a fixed-sample 95% Wilson interval read after every batch passes ${pct(peeked / RUNS)} of accuracy runs at the boundary (one look at the end: ≤ 2.5%)`)
console.log('')
// Thresholds and the baseline gate together (bench/stop/gate-boundary.mjs).
const whole = gateBoundary({ runs: RUNS, decisions: N, alpha: ALPHA, batch: BATCH, mulberry32 })
console.log(whole.lines.join('\n'))
ok &&= whole.ok
console.log('')
console.log(`${ok ? 'ok' : 'FAILED'}: every false-pass rate ${ok ? '≤' : 'not ≤'} α + 3σ = ${pct(ALPHA + 3 * sigma)}; ${((performance.now() - t0) / 1000).toFixed(1)} s`)
if (!ok) process.exitCode = 1
