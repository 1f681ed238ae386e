// Watch mode reruns an eval file when its data file, its baseline or its scorer module
// changes (end to end: `vitest --watch` on a scratch project, files edited under it).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { installBuilt, REPO, useDistSnapshot } from '../helpers/vitest.ts'

const VITEST_BIN = join(REPO, 'node_modules/vitest/vitest.mjs')
const dist = useDistSnapshot()
let project = ''
let child: ChildProcess | undefined
let output = ''

const decision = (i: number, gold: string) =>
  JSON.stringify({ id: `w-${i}`, state: `row ${i}: the answer is ${i % 2 ? 'beta' : 'alpha'}.`, criterion: { key: 'pick', options: [{ id: 'alpha', text: 'Alpha' }, { id: 'beta', text: 'Beta' }] }, answer_id: gold })
const data = (golds: string[]) => golds.map((gold, i) => decision(i, gold)).join('\n') + '\n'
const READER = "export default async (requests) => requests.map((r) => r.criterion.options.map((o) => (r.state.includes(o.id) ? 1 : 0.01)))\n"

beforeAll(() => {
  // Under the repository (so vitest resolves from its node_modules) but not under
  // node_modules/, which Vite's watcher ignores; tmp/ is git-ignored.
  project = join(REPO, 'tmp', `vitest-sceptic-watch-${process.pid}`)
  rmSync(project, { recursive: true, force: true })
  installBuilt(project, dist())
  for (const dir of ['data', 'evals', 'scorers']) mkdirSync(join(project, dir))
  writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(project, 'vitest.config.mjs'), "import { defineConfig } from 'vitest/config'\nimport { sceptic } from 'vitest-sceptic/plugin'\n\nexport default defineConfig({ plugins: [sceptic({ baseline: 'evals/__baselines__' })] })\n")
  writeFileSync(join(project, 'data', 'd.jsonl'), data(['alpha', 'beta', 'alpha', 'beta']))
  writeFileSync(join(project, 'scorers', 'reader.mjs'), READER)
  writeFileSync(
    join(project, 'evals', 'w.eval.ts'),
    "import { describeDecisions } from 'vitest-sceptic'\nimport reader from '../scorers/reader.mjs'\n\ndescribeDecisions('watched', { data: 'data/d.jsonl', scorer: reader, thresholds: { balancedAccuracy: 0.9 } })\n",
  )
})
afterAll(() => {
  child?.kill('SIGKILL')
  if (project) rmSync(project, { recursive: true, force: true })
})

/** Resolve when the `n`-th run summary has been printed; reject after `ms`. */
function runs(n: number, ms = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const poll = setInterval(() => {
      const starts = [...output.matchAll(/^ +Tests +/gm)].map((m) => m.index)
      if (starts.length >= n && /(Waiting|Watching) for file changes/i.test(output.slice(starts[n - 1]))) {
        clearInterval(poll)
        // This run's part of the output: from the previous summary on.
        resolve(output.slice(n > 1 ? starts[n - 2]! + 1 : 0))
      } else if (Date.now() - started > ms) {
        clearInterval(poll)
        reject(new Error(`no run ${n} within ${ms} ms:\n${output}`))
      }
    }, 100)
  })
}

test('a changed gold label, scorer module or baseline reruns the eval file', async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(VITEST|CI$|GITHUB_ACTIONS$|TEST$|NODE_ENV$)/.test(key)))
  child = spawn(process.execPath, [VITEST_BIN, '--watch', '--root', project], { cwd: project, env: { ...env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] })
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  // eslint-disable-next-line no-control-regex
  const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '')

  expect(plain(await runs(1))).toMatch(/Tests +2 passed/)
  expect(JSON.parse(readFileSync(join(project, 'evals/__baselines__/watched.json'), 'utf8')).n).toBe(4)

  // A gold label edited in the data file: balanced accuracy falls below 0.9.
  writeFileSync(join(project, 'data', 'd.jsonl'), data(['alpha', 'beta', 'alpha', 'alpha']))
  expect(plain(await runs(2))).toMatch(/FAIL +evals\/w\.eval\.ts > watched > balancedAccuracy ≥ 0\.9/)

  // The scorer module edited to answer by position: order consistency falls (the baseline test fails).
  writeFileSync(join(project, 'data', 'd.jsonl'), data(['alpha', 'beta', 'alpha', 'beta']))
  await runs(3)
  writeFileSync(join(project, 'scorers', 'reader.mjs'), 'export default async (requests) => requests.map((r) => r.criterion.options.map((_, slot) => (slot === 0 ? 1 : 0.01)))\n')
  expect(plain(await runs(4))).toMatch(/FAIL +evals\/w\.eval\.ts > watched > balancedAccuracy ≥ 0\.9/)

  // The baseline edited by hand into something invalid: the rerun names it.
  writeFileSync(join(project, 'scorers', 'reader.mjs'), READER)
  await runs(5)
  writeFileSync(join(project, 'evals/__baselines__/watched.json'), '{ "schema": 2 }\n')
  expect(plain(await runs(6))).toContain('evals/__baselines__/watched.json, field "suite"')
}, 240_000)
