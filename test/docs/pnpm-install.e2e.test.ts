// The Installing section of docs/getting-started.md, tried with pnpm from the registry: the packed
// package, vitest and onnxruntime-node added to a fresh project. Without a decision on
// onnxruntime-node's install script pnpm refuses the install (ERR_PNPM_IGNORED_BUILDS); with
// `allowBuilds: { onnxruntime-node: false }` it installs without one warning, and an ONNX suite
// runs on the CPU build.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pnpmWarnings } from '../helpers/install-warnings.ts'
import { ROOT, run } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

// The pnpm the docs were written against; it comes from the npm registry like every other package.
const PNPM = 'pnpm@12.23.0'
const VITEST = JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')).version as string
const ORT = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies['onnxruntime-node'] as string

const dir = useTempDir('sceptic-pnpm-')

// npm's own settings (npm test exports .npmrc as npm_config_*) and the outer Vitest's must not leak into the project.
const env = Object.fromEntries(
  Object.keys(process.env)
    .filter((key) => /^(npm_|VITEST|SCEPTIC_|TEST$|NODE_ENV$|CI$)/i.test(key))
    .map((key) => [key, undefined]),
)
const npx = (args: string[], cwd: string) => run('npx', ['-y', PNPM, ...args], { cwd, env, timeoutMs: 240_000 })

let tarball = ''
beforeAll(async () => {
  const packed = await run('npm', ['pack', '--pack-destination', dir], { env, timeoutMs: 120_000 })
  expect(packed.code, packed.stderr).toBe(0)
  tarball = join(dir, readdirSync(dir).find((name) => name.endsWith('.tgz'))!)
}, 150_000)

function project(name: string, workspace?: string): string {
  const root = join(dir, name)
  mkdirSync(root)
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }))
  if (workspace !== undefined) writeFileSync(join(root, 'pnpm-workspace.yaml'), workspace)
  return root
}

const add = (root: string) => npx(['add', '-D', tarball, `vitest@${VITEST}`, `onnxruntime-node@${ORT}`, '--store-dir', join(dir, 'store')], root)

describe(`installing with ${PNPM}`, () => {
  it('finds pnpm\'s warnings (and npx\'s) and nothing else', () => {
    const seen = [
      // pnpm 12, seen installing vitest 5 on Node 20:
      '[WARN] Unsupported engine for vitest@5.1.2: wanted: {"node":"^22.12.0 || ^24.0.0 || >=26.0.0"} (current: {"node":"20.20.2"})',
      ' WARN  deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported',
      '\x1b[33m WARN\x1b[39m  Issues with peer dependencies found',
      'packages/app                             |  WARN  Unsupported engine',
      'npm warn exec The following package was not found and will be installed: pnpm@12.23.0',
      'Progress: resolved 65, reused 0, downloaded 71, added 65, done',
      'Warnings: none',
      '+ vitest 4.1.12 (5.1.2 is available)',
    ].join('\n')
    expect(pnpmWarnings(seen)).toEqual([
      '[WARN] Unsupported engine for vitest@5.1.2: wanted: {"node":"^22.12.0 || ^24.0.0 || >=26.0.0"} (current: {"node":"20.20.2"})',
      ' WARN  deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported',
      ' WARN  Issues with peer dependencies found',
      'packages/app                             |  WARN  Unsupported engine',
      'npm warn exec The following package was not found and will be installed: pnpm@12.23.0',
    ])
  })

  it('without a decision on onnxruntime-node\'s install script, pnpm refuses the install', async () => {
    const { code, stdout, stderr } = await add(project('undecided'))
    expect(code).not.toBe(0)
    expect(stdout + stderr).toMatch(/ERR_PNPM_IGNORED_BUILDS[\s\S]*onnxruntime-node/)
  }, 250_000)

  it('with allowBuilds: { onnxruntime-node: false } it installs without a warning, and an ONNX suite runs on the CPU build', async () => {
    const root = project('decided', 'allowBuilds:\n  onnxruntime-node: false\n')
    const installed = await add(root)
    expect(installed.code, installed.stdout + installed.stderr).toBe(0)
    expect(pnpmWarnings(installed.stdout + installed.stderr)).toEqual([])
    cpSync(join(ROOT, 'examples/models/tiny'), join(root, 'models/tiny'), { recursive: true })
    mkdirSync(join(root, 'evals'))
    writeFileSync(join(root, 'tickets.jsonl'), readFileSync(join(ROOT, 'examples/data/tickets.jsonl'), 'utf8').split('\n').slice(0, 12).join('\n'))
    writeFileSync(join(root, 'vitest.config.ts'), "import { defineConfig } from 'vitest/config'\nimport { sceptic } from 'vitest-sceptic/plugin'\n\nexport default defineConfig({ plugins: [sceptic()] })\n")
    writeFileSync(
      join(root, 'evals/tiny.eval.ts'),
      [
        "import { expect } from 'vitest'",
        "import { describeDecisions } from 'vitest-sceptic'",
        "import { onnxScorer } from 'vitest-sceptic/onnx'",
        "describeDecisions('tiny model under pnpm', { data: 'tickets.jsonl', scorer: onnxScorer({ model: 'models/tiny', workers: 1 }), baseline: false }, (result) => {",
        '  expect(result.failed).toBe(0)',
        '  expect(result.manifest.forwardPasses).toBeGreaterThan(0)',
        '})',
        '',
      ].join('\n'),
    )
    const ran = await run(join(root, 'node_modules/.bin/vitest'), ['run'], { cwd: root, env, timeoutMs: 120_000 })
    expect(ran.code, ran.stdout + ran.stderr).toBe(0)
    expect(ran.stdout).toMatch(/Tests +1 passed \(1\)/)
    // The sceptic report ran too, opening with its verdict.
    expect(ran.stdout + ran.stderr).toMatch(/^verdict {12}\S/m)
  }, 250_000)
})
