// Clean installs on npm 10 and 11: npm 10 ignores package.json "allowScripts", so the
// project's .npmrc must stop onnxruntime-node's install script from downloading CUDA files.
// Checked as a chain: npm (10 and 11) hands the .npmrc setting to scripts, and the
// install script exits early, without network, when it sees that setting.
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT, run } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-npmrc-')
copyFileSync(join(ROOT, '.npmrc'), join(dir, '.npmrc'))
writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', scripts: { probe: 'node -p process.env.npm_config_onnxruntime_node_install' } }))

describe('.npmrc turns off the CUDA download', () => {
  test.each(['10', '11'])('npm %s passes onnxruntime-node-install=skip to install scripts', async (major) => {
    const { code, stdout, stderr } = await run('npx', ['-y', `npm@${major}`, 'run', '--silent', 'probe'], { cwd: dir, timeoutMs: 120_000 })
    expect(code, stderr).toBe(0)
    expect(stdout.trim()).toBe('skip')
  }, 150_000)

  test('onnxruntime-node\'s install script exits 0 at once with that setting', async () => {
    const script = join(ROOT, 'node_modules', 'onnxruntime-node', 'script', 'install.js')
    const { code, stderr } = await run(process.execPath, [script], { env: { npm_config_onnxruntime_node_install: 'skip', ONNXRUNTIME_NODE_INSTALL: undefined }, timeoutMs: 30_000 })
    expect(code, stderr).toBe(0)
  })
})
