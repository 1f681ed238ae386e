#!/usr/bin/env node
// Stopping-early benchmark (npm run bench:stop): seeded simulations of the looks a run with
// stopEarly makes (the built SequentialMonitor, a look every batch), per metric and scenario,
// side by side: the Beta(½, ½) mixture with a look every fiftieth (earlier versions) and the
// betting confidence sequences with a look every hundredth (this version). Balanced accuracy
// runs over a finite set of four unequal classes: old in a shuffled order, new in the
// stratified order a run takes when it is a threshold (rounds of one decision per class drawn
// with replacement; a decision drawn again is not scored again, and "scored" counts decisions).
// At the boundary (true rate = the bound) the share of runs that pass early must stay ≤ alpha;
// on a regression (15 points below) and a clear pass (15 points above) it reports the mean
// share of decisions scored before the stop, next to two oracles that know the true effect:
// the fixed-sample one-sided test at the same α with 80% power, and the sequential
// probability ratio test of the true rate against the bound (Wald 1945), which no
// anytime-valid method that does not know the effect can beat on average.
// Then the bets of the betting bounds, side by side at the same looks: the previous weights (a
// half-normal over the fraction of the largest stake) and this version's (a half-normal over the
// effect each bet is Kelly for), on the same cells and on two large effects near a small rate
// (order consistency 0.05 under 0.2 and 0.02 under 0.17; --large-only runs just those).
// Then the sequential McNemar gate: discordant pairs needed, old and new e-values. The end-to-end
// time to verdict of the ONNX scorer at the Qwen2.5-0.5B shape is its own bench (npm run bench:verdict).
import { parseArgs } from 'node:util'
import { DEFAULT_STOP_ALPHA, lookStops, SequentialMonitor, stratifiedOrder } from '../dist/core/index.js'
import { DEFAULT_PRIOR, FRACTION_BETS, mcnemarBettingEValue, mcnemarEValue, wilsonInterval } from '../dist/stats/index.js'
import { gateBoundary, mulberry32 } from './stop/gate-boundary.mjs'


const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '2000' }, decisions: { type: 'string', default: '1000' }, alpha: { type: 'string', default: String(DEFAULT_STOP_ALPHA) }, metric: { type: 'string' }, 'skip-gates': { type: 'boolean' }, 'large-only': { type: 'boolean' } } })
const RUNS = Number(args.runs)
const N = Number(args.decisions)
const ALPHA = Number(args.alpha)
const OLD_BATCH = Math.min(64, Math.max(8, Math.ceil(N / 50))) // earlier default: a fiftieth
const NEW_BATCH = Math.min(64, Math.max(8, Math.ceil(N / 100))) // this version's default: a hundredth
const CLASSES = [
  { gold: 'a', share: 0.4, offset: 0.1 },
  { gold: 'b', share: 0.3, offset: -0.1 },
  { gold: 'c', share: 0.2, offset: 0.05 },
  { gold: 'd', share: 0.1, offset: -0.05 },
]

/** A decision's observation for a metric at true rate `rate`. */
function draw(metric, rate, random) {
  if (metric === 'balancedAccuracy') {
    // Unequal classes, unequal recalls, their mean exactly `rate`; each decision's class at random (a shuffled set).
    let u = random()
    const cls = CLASSES.find((c) => (u -= c.share) < 0) ?? CLASSES[CLASSES.length - 1]
    return { criterion: 'k', gold: cls.gold, hit: random() < rate + cls.offset, consistent: true, circular: null }
  }
  const success = random() < rate
  return { criterion: 'k', gold: 'a', hit: metric === 'accuracy' ? success : true, consistent: metric === 'orderConsistency' ? success : true, circular: null }
}

function simulate(metric, bound, rate, seed, how) {
  if (metric === 'balancedAccuracy') return simulateSet(bound, rate, seed, how)
  const { prior, bets, batch } = how
  let passes = 0
  let fails = 0
  let scored = 0
  for (let run = 0; run < RUNS; run++) {
    const random = mulberry32(seed * 100_003 + run)
    const monitor = new SequentialMonitor({ [metric]: bound }, ALPHA, [{ criterion: 'k', gold: 'a' }], prior, bets)
    let n = 0
    let verdict = 'undecided'
    while (n < N) {
      for (let i = 0; i < batch && n < N; i++, n++) monitor.observe(draw(metric, rate, random))
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

/**
 * Balanced accuracy over a finite set of N decisions in CLASSES' shares, each class right on
 * exactly its recall's share of its decisions (so the set's balanced accuracy is `rate`),
 * scored in batches as a run does: old, a shuffled order and a look per batch; new, the
 * stratified order, each look counting the complete rounds whose decisions are scored.
 */
function simulateSet(bound, rate, seed, { prior, bets, batch }) {
  const gold = CLASSES.flatMap((c) => Array.from({ length: Math.round(c.share * N) }, () => c.gold))
  const labelled = gold.map((g) => ({ criterion: 'k', gold: g }))
  let passes = 0
  let fails = 0
  let scored = 0
  for (let run = 0; run < RUNS; run++) {
    const random = mulberry32(seed * 100_003 + run)
    // Each class right on exactly its recall's share of its decisions, at random places: the set's balanced accuracy is `rate`.
    const hit = CLASSES.flatMap((c) => shuffle(Array.from({ length: Math.round(c.share * N) }, (_, i) => i < Math.round((rate + c.offset) * c.share * N)), random))
    const observation = (r) => ({ criterion: 'k', gold: gold[r], hit: hit[r], consistent: true, circular: null })
    const monitor = new SequentialMonitor({ balancedAccuracy: bound }, ALPHA, labelled, prior, bets)
    const strata = monitor.strata
    const order = strata ? stratifiedOrder(gold.map((g) => strata.cellOf('k', g)), strata.cells.length, run) : undefined
    const rowOrder = order ? order.rowOrder : shuffle(gold.map((_, r) => r), random)
    const done = new Uint8Array(N)
    let next = 0
    let round = 0
    let verdict = 'undecided'
    while (next < N) {
      for (let i = 0; i < batch && next < N; i++) {
        const r = rowOrder[next++]
        done[r] = 1
        if (!order) monitor.observe(observation(r))
      }
      for (; order && (round + 1) * order.roundSize <= order.draws.length; round++) {
        const draws = order.draws.subarray(round * order.roundSize, (round + 1) * order.roundSize)
        if (!draws.every((r) => done[r])) break
        monitor.observeRound(Array.from(draws, observation))
      }
      const look = monitor.look()
      verdict = look.verdicts.balancedAccuracy
      if (lookStops(look)) break
    }
    if (verdict === 'pass') passes++
    if (verdict === 'fail') fails++
    scored += next / N
  }
  return { pass: passes / RUNS, fail: fails / RUNS, scored: scored / RUNS }
}

function shuffle(items, random) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[items[i], items[j]] = [items[j], items[i]]
  }
  return items
}

// z quantiles for the oracle (one-sided α, power 80%).
function zQuantile(p) {
  // Acklam's rational approximation, ample for a sample-size oracle.
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155211918]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const q = p < 0.5 ? Math.sqrt(-2 * Math.log(p)) : Math.sqrt(-2 * Math.log(1 - p))
  if (p < 0.02425 || p > 1 - 0.02425) {
    const x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    return p < 0.5 ? x : -x
  }
  const r = (p - 0.5) * (p - 0.5)
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * (p - 0.5)) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
}

/** The standard deviation of one decision's contribution to the metric's estimate at true mean `rate`. */
function sd(metric, rate) {
  if (metric !== 'balancedAccuracy') return Math.sqrt(rate * (1 - rate))
  // Balanced accuracy's estimate: Σ_k recall_k / K with n·share_k decisions per class.
  const K = CLASSES.length
  return Math.sqrt(CLASSES.reduce((sum, c) => sum + ((rate + c.offset) * (1 - rate - c.offset)) / (K * K * c.share), 0))
}

/** The fixed-sample oracle: decisions a one-sided z-test at α with 80% power needs for the true effect, as a share of N. */
function fixedOracle(metric, bound, rate) {
  const n = ((zQuantile(1 - ALPHA) * sd(metric, bound) + zQuantile(0.8) * sd(metric, rate)) / (bound - rate)) ** 2
  return Math.min(1, Math.ceil(n) / N)
}

/** Wald's SPRT of the true rate against the bound at 1/α, read at the new batch's looks: the anytime-valid floor. */
function sprtOracle(bound, rate, seed) {
  let scored = 0
  for (let run = 0; run < RUNS; run++) {
    const random = mulberry32(seed * 7_919 + run)
    let log = 0
    let n = 0
    while (n < N) {
      for (let i = 0; i < NEW_BATCH && n < N; i++, n++) log += random() < rate ? Math.log(rate / bound) : Math.log((1 - rate) / (1 - bound))
      if (log >= Math.log(1 / ALPHA)) break
    }
    scored += n / N
  }
  return scored / RUNS
}

const METRICS = [
  ['accuracy', 0.7],
  ['orderConsistency', 0.8],
  ['balancedAccuracy', 0.7],
]
/** Large effects near a small rate: order consistency 15 points under thresholds of 0.2 and 0.17 (a model that answers by position). */
const LARGE = [
  ['orderConsistency', 0.2],
  ['orderConsistency', 0.17],
]
const OLD = { prior: DEFAULT_PRIOR, batch: OLD_BATCH }
const PREVIOUS = { prior: undefined, bets: FRACTION_BETS, batch: NEW_BATCH }
const NEW = { prior: undefined, batch: NEW_BATCH }
const t0 = performance.now()
const sigma = Math.sqrt((ALPHA * (1 - ALPHA)) / RUNS)
const pct = (x) => `${(x * 100).toFixed(1)}%`
console.log(`stopEarly bench: ${RUNS} seeded runs per cell, ${N} decisions, α = ${ALPHA} (3σ = ${pct(3 * sigma)})`)
console.log(`old: Beta(½, ½) mixture, two-sided, a look every ${OLD_BATCH}; new: betting confidence sequences, one-sided ends, a look every ${NEW_BATCH}, bets on effects`)
let ok = true
const goals = { accuracy: 0.09, orderConsistency: 0.075, balancedAccuracy: 0.12 }
const misses = []
const rows = [...(args['large-only'] ? [] : METRICS.map(([metric, bound], m) => [metric, bound, m])), ...LARGE.map(([metric, bound], k) => [metric, bound, 40 + k])]
  .filter(([metric]) => !args.metric || args.metric === metric)
  .map(([metric, bound, m]) => {
    const cells = {}
    for (const [name, how] of [['old', OLD], ['previous', PREVIOUS], ['new', NEW]]) {
      cells[name] = {
        boundary: simulate(metric, bound, bound, 3 * m + 1, how),
        regression: simulate(metric, bound, bound - 0.15, 3 * m + 2, how),
        clear: simulate(metric, bound, Math.min(1, bound + 0.15), 3 * m + 3, how),
      }
      ok &&= cells[name].boundary.pass <= ALPHA + 3 * sigma
    }
    const oracle = (rate) => `${pct(fixedOracle(metric, bound, rate))} / ${metric === 'balancedAccuracy' ? '–' : pct(sprtOracle(bound, rate, 11 * m + Math.round(rate * 100)))}`
    return { metric, bound, cells, oracles: [oracle(bound - 0.15), oracle(Math.min(1, bound + 0.15))] }
  })
const both = (a, b) => `${pct(a.scored)} / ${pct(b.scored)}${a.fail + a.pass < 0.999 || b.fail + b.pass < 0.999 ? ` (decided ${pct(a.fail + a.pass)} / ${pct(b.fail + b.pass)})` : ''}`
/** The table of two of the cells' settings side by side. */
function table(first, second, heading) {
  console.log('')
  console.log(heading)
  console.log('')
  console.log(`| metric | bound | false pass at the boundary ${first} / ${second} | −15: share scored ${first} / ${second} | oracle fixed / SPRT | +15: share scored ${first} / ${second} | oracle fixed / SPRT |`)
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  for (const { metric, bound, cells, oracles } of rows) {
    const [a, b] = [cells[first], cells[second]]
    console.log(`| ${metric} | ${bound} | ${pct(a.boundary.pass)} / ${pct(b.boundary.pass)} | ${both(a.regression, b.regression)} | ${oracles[0]} | ${both(a.clear, b.clear)} | ${oracles[1]} |`)
  }
}
table('old', 'new', 'the bounds: old (Beta mixture) / new (betting, bets on effects)')
table('previous', 'new', 'the bets at the same looks: previous (half-normal over the fraction of the largest stake) / new (half-normal over the effect)')
for (const { metric, bound, cells } of rows) {
  if (bound !== METRICS.find(([m]) => m === metric)[1]) continue
  const fixed = fixedOracle(metric, bound, bound - 0.15)
  const now = cells.new
  if (now.regression.scored > goals[metric]) misses.push(`${metric} −15 scored ${pct(now.regression.scored)} > goal ${pct(goals[metric])}`)
  if (now.regression.scored > 1.6 * fixed) misses.push(`${metric} −15 scored ${pct(now.regression.scored)} > 1.6 × its fixed-sample oracle (${pct(1.6 * fixed)})`)
}

// --skip-gates: the rate table only.
if (!args['skip-gates'] && !args['large-only']) {
  // What peeking costs: a fixed-sample 95% Wilson interval read after every look, stopping at the first pass.
  let peeked = 0
  for (let run = 0; run < RUNS; run++) {
    const random = mulberry32(999_331 + run)
    let hits = 0
    for (let n = 1; n <= N; n++) {
      if (random() < 0.7) hits++
      if (n % OLD_BATCH === 0 && wilsonInterval(hits, n, 0.95).lower >= 0.7) {
        peeked++
        break
      }
    }
  }
  console.log('')
  console.log(`peeking instead: a fixed-sample 95% Wilson interval read after every ${OLD_BATCH} passes ${pct(peeked / RUNS)} of accuracy runs at the boundary (one look at the end: ≤ 2.5%)`)

  // The sequential McNemar gate: discordant pairs until "regressed" (e ≥ 1/α), and the type-I error under H0 (θ = ½).
  console.log('')
  console.log(`sequential McNemar (discordant pairs seen one by one, up to ${N}): mean pairs to "regressed" / share of runs that got there`)
  console.log('')
  console.log('| chance a discordant pair went the bad way | uniform mixture over stakes (= Beta mixture, the default) | half-normal mixture over stakes (scale 0.5) |')
  console.log('| --- | --- | --- |')
  for (const theta of [0.5, 0.65, 0.75, 0.9, 1]) {
    const row = [mcnemarEValue, mcnemarBettingEValue].map((eValue, v) => {
      let pairs = 0
      let crossed = 0
      for (let run = 0; run < RUNS; run++) {
        const random = mulberry32(31 * run + v * 0 + Math.round(theta * 1000))
        let worse = 0
        let better = 0
        for (let i = 1; i <= N; i++) {
          if (random() < theta) worse++
          else better++
          if (eValue(worse, better) >= 1 / ALPHA) {
            crossed++
            pairs += i
            break
          }
        }
      }
      if (theta === 0.5) ok &&= crossed / RUNS <= ALPHA + 3 * sigma
      return theta === 0.5 ? `type-I ${pct(crossed / RUNS)}` : `${(pairs / Math.max(1, crossed)).toFixed(1)} / ${pct(crossed / RUNS)}`
    })
    console.log(`| ${theta === 0.5 ? '½ (H0)' : theta} | ${row[0]} | ${row[1]} |`)
  }
  console.log(`one-way flips to "regressed": uniform ${firstCross(mcnemarEValue)}, half-normal ${firstCross(mcnemarBettingEValue)}`)

  function firstCross(eValue) {
    for (let w = 1; w < 100; w++) if (eValue(w, 0) >= 1 / ALPHA) return w
    return '> 99'
  }

  console.log('')
  // Thresholds and the baseline gate together (bench/stop/gate-boundary.mjs).
  const whole = gateBoundary({ runs: RUNS, decisions: N, alpha: ALPHA, batch: NEW_BATCH, mulberry32 })
  console.log(whole.lines.join('\n'))
  ok &&= whole.ok
}
console.log('')
if (misses.length > 0) console.log(`goals not met: ${misses.join('; ')}`)
console.log(`${ok ? 'ok' : 'FAILED'}: every false-pass and type-I rate ${ok ? '≤' : 'not ≤'} α + 3σ = ${pct(ALPHA + 3 * sigma)}; ${((performance.now() - t0) / 1000).toFixed(1)} s`)
if (!ok) process.exitCode = 1
