// Facts the docs state that drift when the project changes: supported versions, how many
// example eval files there are, the example model's size, where Vitest 5 writes JSON.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { ROOT } from '../helpers/run.ts'

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const pkg = JSON.parse(read('package.json')) as { peerDependencies: Record<string, string>; scripts: Record<string, string> }
// The Vitest pages: writing suites (vitest.md) and the plugin's reference (vitest-plugin.md).
const vitestMd = read('docs/vitest.md') + read('docs/vitest-plugin.md')
const gettingStarted = read('docs/getting-started.md')

test('the Vitest range in docs/vitest.md is the peer range', () => {
  const [, low, high] = /^>=(\S+) <(\d+)$/.exec(pkg.peerDependencies.vitest!)!
  expect(vitestMd).toContain(`Requirements: Vitest ≥ ${low} < ${high} `)
  // Every "Vitest ≥ a < b" on any page states the same range.
  for (const page of ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)])
    for (const [, a, b] of read(page).matchAll(/Vitest ≥ ([\d.]+) < (\d+)/g)) expect(`${page}: ${a} < ${b}`).toBe(`${page}: ${low} < ${high}`)
  expect(vitestMd).toMatch(/ESM and CommonJS\s+projects alike/)
})

test('getting-started counts the example eval files', () => {
  const evals = readdirSync(join(ROOT, 'examples/evals')).filter((f) => f.endsWith('.eval.ts'))
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']
  expect(gettingStarted).toMatch(new RegExp(`Expect ${words[evals.length]} files`))
})

test('the example model size the docs give is its size', () => {
  const bytes = readdirSync(join(ROOT, 'examples/models/tiny')).reduce((sum, f) => (f.endsWith('.onnx') ? sum + statSync(join(ROOT, 'examples/models/tiny', f)).size : sum), 0)
  const stated = /the example model\s+`examples\/models\/tiny` is (\d+) kB/.exec(vitestMd)
  expect(stated, 'docs/vitest*.md names the example model size').not.toBeNull()
  expect(Number(stated![1])).toBe(Math.round(bytes / 1000))
})

test('Vitest 5 json output goes to its file, and npm run eval builds only when stale', () => {
  expect(vitestMd).toContain('`--reporter=json` writes `.vitest/json/output.json`')
  expect(pkg.scripts.eval).toMatch(/^node scripts\/build-if-stale\.mjs && /)
  expect(gettingStarted).toContain('skipped when `dist/` is newer than `src/`')
})
