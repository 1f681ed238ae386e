// Quiet installs: npm prints no warning in the repository, nor when a fresh project installs the
// packed package, and onnxruntime-node's CUDA download stays off without an `.npmrc` key npm
// does not know (npm 11 warned "Unknown project config" on every command for the old one).
// npm 11 reads the `allowScripts` denial in package.json; npm 10 ignores it and needs
// ONNXRUNTIME_NODE_INSTALL=skip, which the install script reads.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { npmWarnings } from '../helpers/install-warnings.ts'
import { ROOT, run } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-quiet-')
const VITEST = JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')).version as string

// npm exports its settings to scripts (npm test) as npm_config_*; they must not reach the npm under test.
const env = Object.fromEntries(
  Object.keys(process.env)
    .filter((key) => /^(npm_|VITEST|SCEPTIC_|ONNXRUNTIME_|TEST$|NODE_ENV$|CI$)/i.test(key))
    .map((key) => [key, undefined]),
)

describe('npm is quiet', () => {
  it('finds npm\'s warnings and nothing else', () => {
    const seen = 'npm warn Unknown project config "onnxruntime-node-install".\n\x1b[33mnpm\x1b[39m \x1b[30;43mWARN\x1b[0m EBADENGINE\nadded 3 packages\n> prepare'
    expect(npmWarnings(seen)).toEqual(['npm warn Unknown project config "onnxruntime-node-install".', 'npm WARN EBADENGINE'])
  })

  it('in the repository: no npm command warns (no unknown .npmrc key)', async () => {
    const { code, stdout, stderr } = await run('npm', ['pkg', 'get', 'name'], { env, timeoutMs: 60_000 })
    expect(code, stderr).toBe(0)
    expect(stdout.trim()).toBe('"vitest-sceptic"')
    expect(npmWarnings(stderr)).toEqual([])
  })

  it('a fresh clone\'s npm ci prints no warning on this Node (ai@7 wants Node ≥ 22: installed only there)', async () => {
    // npm ci --dry-run resolves the lockfile and checks every engine as npm ci does, installing nothing.
    const clone = join(dir, 'clone')
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const locals = [...(pkg.workspaces ?? []), ...Object.values<string>(pkg.devDependencies).filter((spec) => spec.startsWith('file:')).map((spec) => spec.slice(5))]
    for (const file of ['package.json', 'package-lock.json', ...locals.map((local) => join(local, 'package.json'))]) {
      mkdirSync(join(clone, file, '..'), { recursive: true })
      cpSync(join(ROOT, file), join(clone, file))
    }
    const ci = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: clone, env, timeoutMs: 120_000 })
    expect(ci.code, ci.stderr).toBe(0)
    expect(npmWarnings(ci.stdout + ci.stderr)).toEqual([])
    // The AI SDK is installed where it runs (Node ≥ 22), and left out, silently, where it does not.
    const major = Number(process.versions.node.split('.')[0])
    expect(ci.stdout.includes('add ai 7.'), ci.stdout.slice(-2000)).toBe(major >= 22)
  }, 150_000)

  it('package.json denies onnxruntime-node\'s install script, and runs none of its own on install', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.allowScripts['onnxruntime-node']).toBe(false)
    // A consumer installing the tarball would run these; the scripts they name are not shipped.
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[script], script).toBeUndefined()
  })

  it('onnxruntime-node\'s install script exits 0 at once with ONNXRUNTIME_NODE_INSTALL=skip (npm 10\'s way)', async () => {
    const script = join(ROOT, 'node_modules', 'onnxruntime-node', 'script', 'install.js')
    const { code, stdout, stderr } = await run(process.execPath, [script], { env: { ...env, ONNXRUNTIME_NODE_INSTALL: 'skip' }, timeoutMs: 30_000 })
    expect(code, stderr).toBe(0)
    expect(stdout + stderr).toBe('')
  })
})

describe('the packed package in a fresh project', () => {
  let tarball = ''
  beforeAll(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', dir], { env, timeoutMs: 120_000 })
    expect(packed.code, packed.stderr).toBe(0)
    expect(npmWarnings(packed.stderr), 'npm pack').toEqual([])
    tarball = join(dir, readdirSync(dir).find((name) => name.endsWith('.tgz'))!)
  }, 150_000)

  it('ships no source maps: they name src/, which the tarball does not ship, so stack frames name the dist/ files it does', async () => {
    const listing = await run('tar', ['-tzf', tarball], { timeoutMs: 60_000 })
    const files = listing.stdout.split('\n').filter(Boolean)
    expect(files).toContain('package/dist/jest/index.cjs')
    expect(files.filter((file) => file.endsWith('.map') || file.startsWith('package/src/'))).toEqual([])
  })

  it('npm init -y, then npm install of the tarball and vitest: not one warning', async () => {
    const project = join(dir, 'app')
    await run('mkdir', ['-p', project])
    const init = await run('npm', ['init', '-y'], { cwd: project, env, timeoutMs: 60_000 })
    expect(init.code, init.stderr).toBe(0)
    // From the local npm cache when it has everything; the registry otherwise.
    const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '-D', tarball, `vitest@${VITEST}`], { cwd: project, env, timeoutMs: 240_000 })
    expect(installed.code, installed.stderr).toBe(0)
    expect(npmWarnings(installed.stdout + installed.stderr)).toEqual([])
    expect(JSON.parse(readFileSync(join(project, 'node_modules/vitest-sceptic/package.json'), 'utf8')).name).toBe('vitest-sceptic')
  }, 250_000)

  it('docs/onnx.md\'s install step (onnxruntime-node and onnx-proto, both scripts denied): not one warning', async () => {
    const project = join(dir, 'onnx-app')
    await run('mkdir', ['-p', project])
    expect((await run('npm', ['init', '-y'], { cwd: project, env, timeoutMs: 60_000 })).code).toBe(0)
    const doc = readFileSync(join(ROOT, 'docs/onnx.md'), 'utf8')
    const allow = JSON.parse(`{${/^"allowScripts": .*$/m.exec(doc)![0]}}`)
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
    writeFileSync(join(project, 'package.json'), JSON.stringify({ ...pkg, ...allow }, null, 2))
    const command = /^ONNXRUNTIME_NODE_INSTALL=skip npm i -D (onnxruntime-node@\S+) (onnx-proto@\S+)$/m.exec(doc)!
    const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '-D', tarball, command[1]!, command[2]!], { cwd: project, env, timeoutMs: 400_000 })
    expect(installed.code, installed.stderr).toBe(0)
    expect(npmWarnings(installed.stdout + installed.stderr)).toEqual([])
  }, 420_000)
})
