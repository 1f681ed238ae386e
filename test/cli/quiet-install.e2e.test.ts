// Quiet installs: npm prints no warning in the repository, nor when a fresh project installs the
// packed package, and onnxruntime-node's CUDA download stays off without an `.npmrc` key npm
// does not know (npm 11 warned "Unknown project config" on every command for the old one).
// npm 11 reads the `allowScripts` denial in package.json; npm 10 ignores it and needs
// ONNXRUNTIME_NODE_INSTALL=skip, which the install script reads.
import { readdirSync, readFileSync } from 'node:fs'
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
})
