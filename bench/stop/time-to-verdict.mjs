#!/usr/bin/env node
// Time to verdict, end to end (alone: node bench/stop/time-to-verdict.mjs; needs dist/). The ONNX
// scorer at the Qwen2.5-0.5B shape (onnx-qwen.bench.mjs: the generated model, cached under the OS
// temp directory) on 1000 decisions (cyclic, 4 options, ~230-token prompts by default) whose order consistency
// is a clear regression: the threshold declared is the model's own order consistency (a plain run
// of the first --measure decisions, default 200, kept beside the decisions) plus --drop (default 15 points). Headline: wall
// seconds from spawning `sceptic evaluate DATA --model DIR --threshold orderConsistency=T
// --stop-early` to its exit (process start, imports, the scorer's ready() and close() included),
// with a fresh score cache (a CI job without a restored cache: the model's files are hashed) and
// with --no-cache. Then the breakdown, from a child that runs the same stages through the library
// with a timestamp at each: imports, decisions, ready(), each look; and the linear cost fit over
// the looks (seconds = fixed + per decision × decisions), which prices a full run of 1000. This model's
// order consistency is far from the issue's reference case (0.65 under 0.8): the decisions that case
// needs are simulated through evaluateWithScorer (this build's bounds) and priced by the fit.
// Options: --decisions N (default 1000), --prompt-tokens N (each prompt grown to about N tokens; default 230,
// the issue's 0.44 s per decision was measured at ~60), --drop X (default 0.15), --measure N, --order-consistency X
// (skip the measuring run: the model's order consistency, given), --runs N (headline runs per cache mode, default 1),
// --cache-modes fresh,off (the headline runs' score cache), --skip-breakdown, --compare DIST (another build's dist/ folder, run side by side with this one's),
// --verdict-child (internal).
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { makeBenchDecisions } from '../decisions.mjs'
import { modelDir, SHAPES } from '../onnx-qwen.bench.mjs'

process.env.ORT_DISABLE_TELEMETRY ??= '1'
const root = fileURLToPath(new URL('../..', import.meta.url))
const DIST = join(root, 'dist')
const SHAPE = 'qwen2.5-0.5b'
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ')
const seconds = (ms) => (ms / 1000).toFixed(1)

// Written by every spawned process at exit: its CPU seconds (workers included) and peak RSS.
const USAGE_HOOK = `data:text/javascript,${encodeURIComponent("process.on('exit',()=>{const u=process.resourceUsage();process.getBuiltinModule('node:fs').writeFileSync(process.env.SCEPTIC_BENCH_USAGE,JSON.stringify({cpu:(u.userCPUTime+u.systemCPUTime)/1e6,rss:u.maxRSS*1024}))})")}`

/** Prompt tokens of the decisions by default (each prompt grown past this many tokens of the model's tokenizer). */
const PROMPT_TOKENS = 230

/** The decisions file for the model directory and prompt size (made once, beside the other bench data); `tag` names the size in the files derived from it. */
async function decisionsFile(dir, count, tokens) {
  const folder = join(tmpdir(), 'sceptic-bench-verdict', dir.split('/').at(-1))
  mkdirSync(folder, { recursive: true })
  const tag = tokens === PROMPT_TOKENS ? '' : `-${tokens}t`
  const path = join(folder, `decisions-${count}${tag}.jsonl`)
  if (!existsSync(path)) {
    const { decisions, promptTokens } = await makeBenchDecisions(dir, count, { tokens, measure: 'prompt' })
    writeFileSync(`${path}.json`, JSON.stringify({ promptTokens }))
    writeFileSync(`${path}.partial-${process.pid}`, decisions.map((d) => JSON.stringify(d)).join('\n') + '\n')
    renameSync(`${path}.partial-${process.pid}`, path)
  }
  const mean = existsSync(`${path}.json`) ? JSON.parse(readFileSync(`${path}.json`, 'utf8')).promptTokens : undefined
  return { folder, path, tag, mean }
}

/** Spawn `sceptic evaluate` with `args`; wall seconds from spawn to exit, progress lines timestamped, CPU and RSS. */
function evaluate(args, dist = DIST) {
  return new Promise((done, fail) => {
    const scratch = mkdtempSync(join(tmpdir(), 'sceptic-bench-ttv-'))
    const usage = join(scratch, 'usage.json')
    const json = join(scratch, 'result.json')
    const t0 = performance.now()
    const proc = spawn(process.execPath, ['--import', USAGE_HOOK, join(dist, 'cli/main.js'), 'evaluate', ...args, '--json-out', json], {
      cwd: scratch,
      env: { ...process.env, SCEPTIC_PROGRESS: '1', SCEPTIC_BENCH_USAGE: usage },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const progress = []
    let stdout = ''
    let stderr = ''
    proc.stdout.on('data', (chunk) => (stdout += chunk))
    proc.stderr.on('data', (chunk) => {
      stderr += chunk
      const scored = /: (\d+)\/\d+ decisions scored/.exec(String(chunk))
      if (scored) progress.push({ at: performance.now() - t0, scored: Number(scored[1]) })
    })
    proc.on('error', fail)
    proc.on('close', (code) => {
      const wall = (performance.now() - t0) / 1000
      try {
        if (!existsSync(json)) throw new Error(`sceptic evaluate exited ${code} without a result: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)
        const result = JSON.parse(readFileSync(json, 'utf8'))
        const { cpu, rss } = JSON.parse(readFileSync(usage, 'utf8'))
        done({ code, wall, cpu, rss, result, progress, stdout })
      } catch (error) {
        fail(error)
      } finally {
        rmSync(scratch, { recursive: true, force: true })
      }
    })
  })
}

/**
 * The model's order consistency, measured by a plain run (no --stop-early) of the first `sample`
 * decisions of the set (all of them with `sample` = the set's size), kept beside the decisions.
 */
async function measureRun(dir, data, folder, sample, tag) {
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version
  const path = join(folder, `measured-${sample}${tag}-${version}.json`)
  if (existsSync(path)) return { ...JSON.parse(readFileSync(path, 'utf8')), cached: true }
  const part = join(folder, `first-${sample}${tag}.jsonl`)
  writeFileSync(part, readFileSync(data, 'utf8').split('\n').slice(0, sample).join('\n') + '\n')
  const run = await evaluate([part, '--model', dir, '--no-cache', '--no-statistics'])
  const measured = { orderConsistency: run.result.orderConsistency, accuracy: run.result.accuracy, scored: run.result.n, wall: run.wall, cpu: run.cpu, load: load(), at: new Date().toISOString() }
  writeFileSync(path, JSON.stringify(measured))
  return { ...measured, cached: false }
}

/**
 * The issue's reference case, order consistency 0.65 under a 0.8 threshold, which this model does not
 * give: the decisions a run with `stopEarly` scores before its verdict, through evaluateWithScorer
 * (this build's bounds and looks) with a stand-in scorer whose decisions are consistent with chance
 * `rate` (a consistent one picks the same option id under every ordering, another picks slot A).
 */
export async function referenceDecisions(dist, decisions, { rate = 0.65, threshold = 0.8, runs = 200 } = {}) {
  const { evaluateWithScorer } = await import(join(dist, 'core/index.js'))
  const options = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: `Option ${id}` }))
  const scored = []
  for (let run = 0; run < runs; run++) {
    const data = Array.from({ length: decisions }, (_, d) => ({ id: `r${d}`, state: `${run} ${d}`, criterion: { key: 'k', question: 'q?', options }, answer_id: options[d % 4].id }))
    const consistent = new Map(data.map((x, d) => [x.state, hashUnit(run * 1_000_003 + d) < rate]))
    const score = (requests) => requests.map((r) => r.criterion.options.map((o, slot) => (consistent.get(r.state) ? (o.id === 'a' ? 0.7 : 0.1) : slot === 0 ? 0.7 : 0.1)))
    const result = await evaluateWithScorer(data, score, { thresholds: { orderConsistency: threshold }, stopEarly: true, seed: run, statistics: false })
    scored.push(result.stopEarly.scored)
  }
  return { mean: scored.reduce((a, b) => a + b, 0) / runs, runs, rate, threshold }
}

/** A uniform number in [0, 1) from an integer (splitmix32). */
function hashUnit(n) {
  let z = (n + 0x9e3779b9) | 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32
}

/** The score cache of the headline runs: fresh (the default cache, in a new folder: the model's files are hashed) or off. */
const MODES = [
  ['fresh score cache', [], 'fresh'],
  ['--no-cache', ['--no-cache'], 'off'],
]

/** Least-squares line through (decisions, seconds). */
function fit(points) {
  const n = points.length
  const mx = points.reduce((s, p) => s + p.x, 0) / n
  const my = points.reduce((s, p) => s + p.y, 0) / n
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0)
  const slope = sxx === 0 ? 0 : points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx
  return { fixed: my - slope * mx, perDecision: slope }
}

/** In a child: the CLI's stages through the library, a timestamp at each (ms since this process started). */
async function child(dir, data, threshold, dist) {
  const at = () => performance.now()
  const marks = { imported: 0, loaded: 0, scorer: 0, ready: 0 }
  const { evaluateWithScorer, loadDecisions } = await import(join(dist, 'core/index.js'))
  const { onnxScorer } = await import(join(dist, 'onnx/index.js'))
  marks.imported = at()
  const decisions = await loadDecisions(data)
  marks.loaded = at()
  const scorer = onnxScorer({ model: dir })
  marks.scorer = at()
  const { readout } = await scorer.ready()
  marks.ready = at()
  const looks = []
  const result = await evaluateWithScorer(decisions, scorer, {
    thresholds: { orderConsistency: threshold },
    stopEarly: true,
    scorerDescription: scorer.description,
    onProgress: ({ scored }) => looks.push({ at: at(), scored }),
  })
  const verdict = at()
  await scorer.close()
  const closed = at()
  // After the run, alone: what the score cache's key costs with a fresh cache (every file of the model directory hashed).
  const files = readdirSync(join(dir, 'onnx')).map((name) => join(dir, 'onnx', name)).concat([join(dir, 'tokenizer.json'), join(dir, 'tokenizer_config.json')])
  const cpu0 = process.cpuUsage()
  const t0 = at()
  let bytes = 0
  for (const file of files) {
    const hash = createHash('sha256')
    for await (const chunk of createReadStream(file, { highWaterMark: 4 * 2 ** 20 })) (hash.update(chunk), (bytes += chunk.length))
    hash.digest()
  }
  const cpu = process.cpuUsage(cpu0)
  const hash = { seconds: (at() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6, bytes }
  process.stdout.write(JSON.stringify({ marks, looks, verdict, closed, hash, readout, description: scorer.description, stopEarly: result.stopEarly, stats: scorer.stats }) + '\n')
}

function runChild(dir, data, threshold, dist) {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--verdict-child', '--dir', dir, '--data', data, '--threshold', String(threshold), '--dist', dist], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    proc.stdout.on('data', (chunk) => (out += chunk))
    proc.on('error', fail)
    proc.on('close', (code) => (code === 0 ? done(JSON.parse(out.trim().split('\n').at(-1))) : fail(new Error(`breakdown child exited ${code}`))))
  })
}

export async function timeToVerdict({ decisions = 1000, promptTokens = PROMPT_TOKENS, drop = 0.15, orderConsistency, runs = 1, skipBreakdown = false, compare, measure = 200, modes = ['fresh', 'off'] } = {}) {
  console.log(`time to verdict: ${cpus().length} cores, load average ${load()} (1, 5, 15 min)`)
  const { dir, generated } = await modelDir(SHAPE, { ...SHAPES[SHAPE], headScale: 8 })
  console.log(`model ${SHAPE} ${generated === undefined ? '(cached)' : `(generated in ${generated.toFixed(0)} s)`}: ${dir}`)
  const { folder, path: data, tag, mean } = await decisionsFile(dir, decisions, promptTokens)
  console.log(`decisions: ${decisions}, prompts grown to ≥ ${promptTokens} tokens${mean === undefined ? '' : ` (mean ${mean.toFixed(1)})`}: ${data}`)
  let oc = orderConsistency
  if (oc === undefined) {
    const m = await measureRun(dir, data, folder, Math.min(measure, decisions), tag)
    oc = m.orderConsistency
    const se = Math.sqrt((oc * (1 - oc)) / m.scored)
    console.log(`measured (plain run of the first ${m.scored} decisions, ${m.cached ? `cached, ${m.at}` : 'now'}): order consistency ${oc.toFixed(3)} (standard error ${se.toFixed(3)}), accuracy ${m.accuracy.toFixed(3)}; ${m.wall.toFixed(1)} s wall, ${m.cpu.toFixed(1)} CPU s, load ${m.load}`)
  } else console.log(`order consistency given: ${oc}`)
  const threshold = Math.round((oc + drop) * 1000) / 1000
  console.log(`declared: orderConsistency ≥ ${threshold} (the model's ${oc.toFixed(3)} + ${drop}); sceptic evaluate … --stop-early, alpha 0.05`)
  const rows = []
  const fits = []
  const builds = [['', DIST], ...(compare ? [[`${compare}: `, compare]] : [])]
  for (let run = 0; run < runs; run++)
    for (const [label, flags] of MODES.filter(([, , name]) => modes.includes(name)))
      for (const [build, dist] of builds) {
        const before = load()
        const r = await evaluate([data, '--model', dir, '--threshold', `orderConsistency=${threshold}`, '--stop-early', ...flags], dist)
        const s = r.result.stopEarly
        // The linear cost fit over the progress lines (decisions scored, seconds since spawn): the fixed cost and the cost per decision.
        const line = r.progress.length >= 2 ? fit(r.progress.map((p) => ({ x: p.scored, y: p.at / 1000 }))) : undefined
        fits.push({ dist, label: build + label, line })
        const fitted = line ? [line.fixed.toFixed(1), line.perDecision.toFixed(3), (line.fixed + line.perDecision * s.total).toFixed(0)] : ['-', '-', '-']
        rows.push([build + label, r.wall.toFixed(1), r.cpu.toFixed(1), `${s.scored}/${s.total}`, `${s.verdicts.orderConsistency}${s.stopped ? '' : ' (not stopped)'}`, String(r.code), ...fitted, (r.rss / 2 ** 30).toFixed(2), `${before} → ${load()}`])
      }
  const header = ['sceptic evaluate --stop-early', 'wall s', 'CPU s', 'scored', 'verdict', 'exit', 'fit: fixed s', 's/decision', `full run of ${decisions} s`, 'peak RSS GiB', 'load average (1, 5, 15 min) before → after']
  table(header, rows)
  for (const [build, dist] of builds) {
    const ref = await referenceDecisions(dist, decisions)
    const run = fits.find((f) => f.dist === dist && f.line)
    const projected = run ? ` → by the fit of "${run.label}": ${(run.line.fixed + run.line.perDecision * ref.mean).toFixed(1)} s (${run.line.fixed.toFixed(1)} s + ${ref.mean.toFixed(1)} × ${run.line.perDecision.toFixed(3)} s)` : ''
    console.log(`${build}reference case (order consistency ${ref.rate} under ${ref.threshold}, simulated, ${ref.runs} runs): ${ref.mean.toFixed(1)} of ${decisions} decisions scored on average${projected}`)
  }
  console.log(`goal: ≤ 40 s wall on two cores from process start to verdict; CPU s / ${cpus().length} is the floor on an idle machine`)
  console.log(`fit: least squares over the progress lines (every 2 s: decisions scored, seconds since spawn); full run = fixed + ${decisions} × s/decision`)
  if (skipBreakdown) return
  for (const [build, dist] of builds) await breakdown(build, dist, dir, data, threshold, decisions)
}

/** The breakdown of one build's run: its stages' times, the looks, the fit, and what hashing the model's files costs. */
async function breakdown(build, dist, dir, data, threshold, decisions) {
  const b = await runChild(dir, data, threshold, dist)
  const m = b.marks
  console.log(`\n${build}breakdown (library, one child; ${b.description}; readout ${b.readout}), seconds since the process started:`)
  console.log(`  imports ${seconds(m.imported)} · decisions loaded ${seconds(m.loaded)} · onnxScorer() ${seconds(m.scorer)} · ready() ${seconds(m.ready)} (${seconds(m.ready - m.scorer)} s) · verdict ${seconds(b.verdict)} · closed ${seconds(b.closed)}`)
  const gaps = b.looks.map((look, i) => `${look.scored}: ${seconds(look.at - (i === 0 ? m.ready : b.looks[i - 1].at))}`)
  console.log(`  looks (decisions scored: seconds since the previous look): ${gaps.join(', ')}`)
  const line = fit(b.looks.map((look) => ({ x: look.scored, y: look.at / 1000 })))
  console.log(`  linear cost fit over the looks: ${line.fixed.toFixed(1)} s + ${line.perDecision.toFixed(3)} s/decision → verdict after ${b.stopEarly.scored}: ${(line.fixed + line.perDecision * b.stopEarly.scored).toFixed(1)} s; a full run of ${decisions}: ${(line.fixed + line.perDecision * decisions).toFixed(0)} s`)
  console.log(`  scorer: ${b.stats.requests} requests, ${b.stats.tokensRun} tokens run (${b.stats.promptTokens} prompt tokens)`)
  console.log(`  sha256 of the model's files (what a fresh score cache hashes before its first lookup): ${b.hash.seconds.toFixed(1)} s wall, ${b.hash.cpu.toFixed(1)} CPU s for ${(b.hash.bytes / 2 ** 30).toFixed(2)} GiB; load average now ${load()}`)
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  console.log(line(header))
  for (const row of rows) console.log(line(row))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      'verdict-child': { type: 'boolean', default: false },
      dir: { type: 'string' },
      data: { type: 'string' },
      threshold: { type: 'string' },
      dist: { type: 'string' },
      compare: { type: 'string' },
      decisions: { type: 'string', default: '1000' },
      'prompt-tokens': { type: 'string', default: String(PROMPT_TOKENS) },
      drop: { type: 'string', default: '0.15' },
      'order-consistency': { type: 'string' },
      measure: { type: 'string', default: '200' },
      'cache-modes': { type: 'string', default: 'fresh,off' },
      runs: { type: 'string', default: '1' },
      'skip-breakdown': { type: 'boolean', default: false },
    },
  })
  if (values['verdict-child']) await child(values.dir, values.data, Number(values.threshold), values.dist)
  else
    await timeToVerdict({
      decisions: Number(values.decisions),
      promptTokens: Number(values['prompt-tokens']),
      drop: Number(values.drop),
      ...(values['order-consistency'] ? { orderConsistency: Number(values['order-consistency']) } : {}),
      runs: Number(values.runs),
      measure: Number(values.measure),
      modes: values['cache-modes'].split(','),
      skipBreakdown: values['skip-breakdown'],
      ...(values.compare ? { compare: values.compare } : {}),
    })
}
