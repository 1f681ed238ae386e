// The whole gate at the boundary (npm run bench:stop): a run that declares a threshold and a
// baseline gate together. Seeded simulations of both stop rules, side by side:
// - old: stop once the thresholds are decided, then judge the baseline on the decisions scored
//   (sequential McNemar e-value ≥ 1/α on their discordant pairs);
// - now: a run with a baseline gate does not stop before that gate is decided, which it is on the
//   whole set (exact one-sided McNemar, p < α); the thresholds' looks still decide them.
// A false pass is a run the gate passes although a check fails in truth: the threshold's true rate
// at its bound (decided as a pass only by the anytime-valid bounds; a run that scored everything
// is a point estimate, the fixed-sample rule), or the baseline regressed.
import { lookStops, SequentialMonitor } from '../../dist/core/index.js'
import { mcnemarEValue, mcnemarExact } from '../../dist/stats/index.js'

/**
 * One run of `n` decisions: each right with chance `rate`, consistent at baseline with chance
 * `baselineConsistent`, and, when consistent at baseline, inconsistent now with chance `drop / baselineConsistent`.
 */
function run(rule, { n, batch, alpha, bound, rate, baselineConsistent, drop }, random) {
  const monitor = new SequentialMonitor({ accuracy: bound }, alpha, [{ criterion: 'k', gold: 'a' }])
  let scored = 0
  let hits = 0
  let worse = 0
  let better = 0
  let look
  while (scored < n) {
    for (let i = 0; i < batch && scored < n; i++, scored++) {
      const hit = random() < rate
      const before = random() < baselineConsistent
      const now = before ? random() >= drop / baselineConsistent : false
      if (before && !now) worse++
      if (!before && now) better++
      hits += hit ? 1 : 0
      monitor.observe({ criterion: 'k', gold: 'a', hit, consistent: now, circular: null })
    }
    look = monitor.look()
    // Old: the thresholds alone stop the run. Now: a declared baseline gate keeps it going to the end.
    if (rule === 'old' && lookStops(look)) break
  }
  const stopped = scored < n
  const verdict = look.verdicts.accuracy
  const thresholdPass = stopped ? verdict === 'pass' : verdict === 'pass' || (verdict !== 'fail' && hits / n >= bound)
  const baselinePass = stopped ? mcnemarEValue(worse, better) < 1 / alpha : !(mcnemarExact(worse, better).pBGreater < alpha)
  return { pass: thresholdPass && baselinePass, earlyPass: stopped && thresholdPass && baselinePass, scored: scored / n }
}

function cell(rule, scenario, { runs, seed, mulberry32 }) {
  let pass = 0
  let earlyPass = 0
  let scored = 0
  for (let r = 0; r < runs; r++) {
    const outcome = run(rule, scenario, mulberry32(seed * 100_003 + r))
    pass += outcome.pass ? 1 : 0
    earlyPass += outcome.earlyPass ? 1 : 0
    scored += outcome.scored
  }
  return { pass: pass / runs, earlyPass: earlyPass / runs, scored: scored / runs }
}

/**
 * The table: per scenario, the share of runs the gate passes under each rule. `ok` when, under the
 * rule now, no run passes early at the threshold's boundary beyond α + 3σ, and a regression the
 * whole set shows (8 points of order consistency) passes no more often than α + 3σ.
 */
export function gateBoundary({ runs, decisions, alpha, batch, mulberry32 }) {
  const base = { n: decisions, batch, alpha, bound: 0.7, baselineConsistent: 0.9 }
  const scenarios = [
    { name: 'threshold at its bound (0.70), baseline unchanged', truth: 'fails', early: true, ...base, rate: 0.7, drop: 0 },
    { name: 'threshold clear (0.85), order consistency −8 points vs baseline', truth: 'fails', ...base, rate: 0.85, drop: 0.08 },
    { name: 'threshold clear (0.85), order consistency −3 points vs baseline', truth: 'fails', ...base, rate: 0.85, drop: 0.03 },
    { name: 'threshold clear (0.85), baseline unchanged (a true pass)', truth: 'passes', ...base, rate: 0.85, drop: 0 },
  ]
  const sigma = Math.sqrt((alpha * (1 - alpha)) / runs)
  const pct = (x) => `${(x * 100).toFixed(1)}%`
  const lines = [
    `the whole gate (accuracy ≥ 0.7 and a baseline gate on order consistency, baseline 90%): ${runs} seeded runs per cell, ${decisions} decisions, α = ${alpha}`,
    '',
    '| scenario | truth | old rule: passed (early) / scored | now: passed (early) / scored |',
    '| --- | --- | --- | --- |',
  ]
  let ok = true
  scenarios.forEach((scenario, i) => {
    const old = cell('old', scenario, { runs, seed: 7_001 + 2 * i, mulberry32 })
    const now = cell('now', scenario, { runs, seed: 7_001 + 2 * i, mulberry32 })
    // At the threshold's bound only a pass the looks decided early is false (a full run's point estimate is the fixed-sample rule).
    const falsePass = scenario.early ? now.earlyPass : now.pass
    if (scenario.truth === 'fails' && scenario.drop >= 0.08) ok &&= falsePass <= alpha + 3 * sigma
    if (scenario.early) ok &&= falsePass <= alpha + 3 * sigma
    lines.push(`| ${scenario.name} | ${scenario.truth} | ${pct(old.pass)} (${pct(old.earlyPass)}) / ${pct(old.scored)} | ${pct(now.pass)} (${pct(now.earlyPass)}) / ${pct(now.scored)} |`)
  })
  lines.push('', `${ok ? 'ok' : 'FAILED'}: with the rule now, early passes at the threshold's bound and passes of an 8-point regression ${ok ? '≤' : 'not ≤'} α + 3σ = ${pct(alpha + 3 * sigma)}`)
  return { lines, ok }
}
