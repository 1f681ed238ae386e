// docs/getting-started.md, followed literally by a new user: `npm pack` this package, a
// fresh `npm init -y` project (CommonJS), `npm i -D <tarball> vitest` from the registry
// (cache), every file the "In your own project" section writes out, its commands, and the
// output it documents.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { ROOT, run } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const doc = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8')
const section = doc.slice(doc.indexOf('## In your own project'), doc.indexOf('## Next'))
const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]!, at: m.index! }))
const vitestVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')).version as string
const project = useTempDir('sceptic-getting-started-')
const env = { CI: undefined, GITHUB_ACTIONS: undefined, VITEST: undefined, VITEST_MODE: undefined, VITEST_POOL_ID: undefined, VITEST_WORKER_ID: undefined, TEST: undefined, NODE_ENV: undefined }

beforeAll(async () => {
  // The tarball of the built package (npm test builds first; --ignore-scripts: no rebuild under running tests).
  const pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', project, '--silent'], { timeoutMs: 120_000 })
  expect(pack.code, pack.stderr).toBe(0)
  const tarball = join(project, readdirSync(project).find((f) => f.endsWith('.tgz'))!)
  const app = join(project, 'app')
  mkdirSync(app)
  expect((await run('npm', ['init', '-y'], { cwd: app, timeoutMs: 60_000 })).code).toBe(0)
  // The doc's `npm i -D vitest-sceptic vitest`, with the tarball for the package and this run's Vitest.
  const install = await run('npm', ['i', '-D', tarball, `vitest@${vitestVersion}`, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 300_000, env })
  expect(install.code, install.stderr).toBe(0)
  expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs') // as npm init -y makes it
}, 420_000)

test('every file the section writes out, then its commands, give the documented output', async () => {
  const app = join(project, 'app')
  const files: string[] = []
  for (const block of blocks) {
    const named = /^\/\/ ([\w./-]+)\n/.exec(block.body)?.[1]
    // A jsonl block is the file the text just before it names.
    const jsonl = block.lang === 'jsonl' ? [...section.slice(0, block.at).matchAll(/`([\w./-]+\.jsonl)`/g)].pop()?.[1] : undefined
    const path = named ?? jsonl
    if (!path) continue
    mkdirSync(dirname(join(app, path)), { recursive: true })
    writeFileSync(join(app, path), block.body)
    files.push(path)
  }
  // Step 4's always-first scorer too; its eval file (an `exit=1` block) is the docs test's to run.
  expect(files.sort()).toEqual(['data/eval.jsonl', 'evals/triage.eval.ts', 'scorers/always-first.mjs', 'scorers/my-model.mjs', 'vitest.config.mts'])

  const commands = blocks.filter((b) => b.lang === 'sh').flatMap((b) => b.body.trim().split('\n')).filter((line) => line.startsWith('npx '))
  expect(commands).toEqual(['npx sceptic evaluate data/eval.jsonl --scorer scorers/my-model.mjs', 'npx vitest run evals/'])
  const bin = (name: string) => join(app, 'node_modules', '.bin', name)

  const cli = await run(bin('sceptic'), commands[0]!.split(' ').slice(2), { cwd: app, env, timeoutMs: 120_000 })
  expect(cli.code, cli.stderr).toBe(0)
  expect(cli.stdout).toMatch(/^debias {13}cyclic /m)
  expect(cli.stdout).toMatch(/^order consistency  100\.0%/m)
  // The verdict the page quotes is the one the report opens with; step 4's scorer gets the same "cannot tell".
  const quoted = blocks.find((b) => b.lang === 'text' && b.body.startsWith('verdict '))!.body.trim()
  expect(cli.stdout.split('\n')[0]).toBe(quoted)
  const positional = await run(bin('sceptic'), ['evaluate', 'data/eval.jsonl', '--scorer', 'scorers/always-first.mjs'], { cwd: app, env, timeoutMs: 120_000 })
  expect(positional.stdout.split('\n')[0]).toMatch(/^verdict {12}too few decisions to tell: balanced accuracy 0% at n = 2, /)
  expect(section).toContain("report's verdict still reads `too few decisions to tell`")

  const vitest = await run(bin('vitest'), commands[1]!.split(' ').slice(2), { cwd: app, env, timeoutMs: 180_000 })
  const output = vitest.stdout + vitest.stderr
  expect(vitest.code, output).toBe(0)
  // The page's config is .mts: no Vite warning about ESM syntax in a CommonJS project.
  expect(output).not.toMatch(/ESM syntax in a file loaded as CommonJS/)
  const documented = blocks.find((b) => b.lang === 'text' && b.body.includes('Test Files'))!.body.trim().split('\n')
  for (const line of documented) expect(output).toMatch(new RegExp(`^ *${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'))
  expect(output.indexOf('SCEPTIC REPORT')).toBeGreaterThan(output.indexOf('Test Files'))
  // The baseline and the snapshot are written on this first local run.
  expect(readdirSync(join(app, 'evals', '__baselines__'))).toEqual(['support-triage.json'])
  expect(readdirSync(join(app, 'evals', '__snapshots__'))).toEqual(['triage.eval.ts.snap'])
}, 420_000)
