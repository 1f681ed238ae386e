// End-to-end: docs/jest.md followed as written, in a new project with the package installed as the
// tarball holds it: its config, Babel config and eval file, then its "Module systems" steps for a
// scorer in an `.mjs` file. Without the page's transform the eval file that imports the scorer fails
// to load and the reporter prints the page's one line; with it, that suite runs. The page's sample of
// a failing threshold, with Jest's code frame at the `describeDecisions` call, is what Jest prints.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect, test } from 'vitest'
import { installedProject, jest } from '../helpers/jest.ts'
import { useTempDir } from '../helpers/temp.ts'
import { REPO, useDistSnapshot } from '../helpers/vitest.ts'

const work = useTempDir('sceptic-jest-page-')
const dist = useDistSnapshot()
const PAGE = readFileSync(join(REPO, 'docs/jest.md'), 'utf8')

/** The page's fenced blocks: language and body. */
const blocks = [...PAGE.matchAll(/^```(\w+)[^\n]*\n([\s\S]*?)^```$/gm)].map(([, lang, body]) => ({ lang: lang!, body: body! }))
/** The page's code blocks whose first line names `file`, in page order. */
const named = (file: string) => blocks.filter(({ body }) => body.split('\n')[0] === `// ${file}`).map(({ body }) => body)
/** The page's text block holding `text`. */
const sample = (text: string) => blocks.find(({ lang, body }) => lang === 'text' && body.includes(text))?.body

test('jest.md as written: the eval file fails its thresholds at the user\'s line; an .mjs scorer loads with the page\'s transform, and without it the reporter says so in one line', async () => {
  const project = installedProject(join(work, 'project'), dist())
  const write = (file: string, body: string) => {
    mkdirSync(dirname(join(project, file)), { recursive: true })
    writeFileSync(join(project, file), body)
  }
  const [config, configWithTransform] = named('jest.config.mjs')
  const [evalFile] = named('evals/triage.eval.ts')
  const [scorer] = named('scorers/first-option.mjs')
  const [babel] = named('babel.config.cjs')
  for (const block of [config, configWithTransform, evalFile, scorer, babel]) expect(block, 'a block the test follows is missing from docs/jest.md').toBeDefined()
  expect(configWithTransform).toContain(`transform: { '\\\\.[mc]?[jt]sx?$': 'babel-jest' }`)
  // The page's data is data-format.md's JSONL file: the example tickets.
  write('data/eval.jsonl', readFileSync(join(REPO, 'examples/data/tickets.jsonl'), 'utf8'))
  write('babel.config.cjs', babel!)
  write('evals/triage.eval.ts', evalFile!)
  write('scorers/first-option.mjs', scorer!)
  // "the one above with `import { firstOption } from '../scorers/first-option.mjs'` in place of its own".
  const own = /^\/\/ Always the first option.*\nconst firstOption: ScoreFn = .*$/m
  expect(evalFile).toMatch(own)
  expect(PAGE).toContain("`import { firstOption } from '../scorers/first-option.mjs'` in place of its own")
  write('evals/first-option.eval.ts', evalFile!.replace('// evals/triage.eval.ts', '// evals/first-option.eval.ts').replace(own, "import { firstOption } from '../scorers/first-option.mjs'"))

  // Without the transform: the .mjs cannot be required, and the reporter's line is the page's.
  write('jest.config.mjs', config!)
  const without = await jest(project, [])
  expect(without.code, without.output).toBe(1)
  expect(without.output).toContain('FAIL evals/first-option.eval.ts\n  ● Test suite failed to run\n\n    Must use import to load ES Module')
  const hint = sample('cannot require()')!.trim()
  expect(hint.split('\n')).toHaveLength(1)
  expect(without.output.split('\n')).toContain(hint)
  // The page's own eval file ran and failed by its thresholds, each at the describeDecisions call, as the page shows.
  const threshold = sample('● support triage › balancedAccuracy ≥ 0.8')!
  const shown = threshold.slice(threshold.indexOf('  ● support triage')).trimEnd()
  expect(without.output).toContain(shown)
  expect(shown).toMatch(/> {1,2}\d+ \| describeDecisions\('support triage', \{/)

  // With the page's transform the .mjs scorer loads: its suite runs and fails its thresholds by name.
  write('jest.config.mjs', configWithTransform!)
  const withTransform = await jest(project, [])
  expect(withTransform.code, withTransform.output).toBe(1)
  expect(withTransform.output).not.toContain('Must use import')
  expect(withTransform.output).not.toContain('cannot require()')
  const ran = withTransform.output.slice(withTransform.output.indexOf('FAIL evals/first-option.eval.ts'))
  expect(ran).toMatch(/^FAIL evals\/first-option\.eval\.ts\n {2}● support triage › balancedAccuracy ≥ 0\.8\n\n {4}expected balanced accuracy ≥ 0\.80, measured 0\.000/)
  expect(ran).toMatch(/at Object\.<anonymous> \(evals\/first-option\.eval\.ts:\d+:\d+\)/)
  expect(withTransform.output).toContain('SCEPTIC REPORT  2 suites')
  expect(withTransform.output).toMatch(/verdict {12}answers by position/)
}, 180_000)
