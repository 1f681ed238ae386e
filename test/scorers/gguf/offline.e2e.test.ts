// A GGUF evaluation with the network refused: a preload (test/fixtures/offline) makes every
// socket, DNS lookup, HTTP(S) request and fetch throw and records it, records every child
// process, and at exit every GPU library mapped into the process; it reaches child processes
// through NODE_OPTIONS (node-llama-cpp forks one to check that its binary loads). node-llama-cpp's own environment variables are set to what would ask
// for a GPU, a download or a build. The run completes with exit 0, nothing is attempted, and
// nothing is written outside the run's outputs: node-llama-cpp's package folders, HOME and
// the temp folder are unchanged.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, ROOT, run } from '../../helpers/run.ts'
import { temp, writeTwins } from './helpers.ts'

afterAll(() => temp.removeAll())

const PRELOAD = join(ROOT, 'test/fixtures/offline/refuse-network.cjs')
const DATA = join(ROOT, 'examples/data/tickets.jsonl')
/** node-llama-cpp's settings by environment that would ask for a GPU, a download, a build or debug logs. */
const LLAMA_ENV = {
  NODE_LLAMA_CPP_GPU: 'cuda',
  NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'false',
  NODE_LLAMA_CPP_REPO: 'example/llama.cpp',
  NODE_LLAMA_CPP_REPO_RELEASE: 'b1',
  NODE_LLAMA_CPP_CMAKE_OPTION_GGML_NATIVE: 'ON',
  NODE_LLAMA_CPP_LOG_LEVEL: 'debug',
  NODE_LLAMA_CPP_DEBUG: 'true',
  NODE_LLAMA_CPP_POSTINSTALL: 'auto',
  CI: 'true',
}

/** Every entry under `dir` with its size and modification time (a folder's changes when an entry is added or removed). */
function snapshot(dir: string): string[] {
  if (!existsSync(dir)) return []
  return (readdirSync(dir, { recursive: true }) as string[])
    .concat('.')
    .sort()
    .map((entry) => {
      const stat = statSync(join(dir, entry))
      return `${entry} ${stat.size} ${stat.mtimeMs}`
    })
}

function offline(env: Record<string, string>, args: string[]): ReturnType<typeof run> & { attempts: () => Record<string, string>[] } {
  const log = join(env.HOME!, '..', 'offline.jsonl')
  const result = run(process.execPath, args, { env: { NODE_OPTIONS: `--require ${PRELOAD}`, SCEPTIC_OFFLINE_LOG: log, ...env }, timeoutMs: 170_000 })
  return Object.assign(result, { attempts: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : []) })
}

function folders(): { dir: string; home: string; tmp: string; out: string } {
  const dir = temp.make()
  const paths = { dir, home: join(dir, 'home'), tmp: join(dir, 'tmp'), out: join(dir, 'out') }
  for (const path of [paths.home, paths.tmp, paths.out]) mkdirSync(path)
  return paths
}

describe('a GGUF run with no network', () => {
  it('the preload refuses and records what it should (the test can fail)', async () => {
    const { home, tmp } = folders()
    const probe = offline({ HOME: home, TMPDIR: tmp }, [
      '--input-type=module',
      '-e',
      "import { request } from 'node:http'; import { execFileSync } from 'node:child_process'; for (const go of [() => request('http://127.0.0.1:9/'), () => fetch('http://127.0.0.1:9/'), () => execFileSync(process.execPath, ['-e', '0'])]) { try { await go() } catch {} }",
    ])
    const result = await probe
    expect(result.code, result.stderr).toBe(0)
    expect(probe.attempts().map((a) => a.what)).toEqual(expect.arrayContaining(['http.request', 'fetch', 'child_process.execFileSync']))
  })

  it('sceptic evaluate --model x.gguf completes: exit 0, nothing attempted, nothing written outside its outputs', async () => {
    const { home, tmp, out } = folders()
    const { dir: models, gguf } = writeTwins(undefined, ['Q8_0'])
    const packages = [join(ROOT, 'node_modules/node-llama-cpp'), join(ROOT, 'node_modules/@node-llama-cpp/linux-x64')]
    const before = packages.map(snapshot)
    const modelsBefore = snapshot(models)
    const json = join(out, 'result.json')
    const evaluation = offline({ HOME: home, TMPDIR: tmp, ...LLAMA_ENV }, [CLI, 'evaluate', DATA, '--model', gguf.Q8_0!, '--debias', 'cyclic', '--no-cache', '--json-out', json])
    const result = await evaluation
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/balanced accuracy/i)
    // NODE_LLAMA_CPP_DEBUG would hand llama.cpp's own log to stderr.
    expect(result.stderr.split('\n').filter((line) => line && !line.startsWith('vitest-sceptic: skipping 4 unlabelled'))).toEqual([])
    const attempts = evaluation.attempts()
    expect(attempts.filter((a) => a.kind !== 'process')).toEqual([])
    // The one child process: node-llama-cpp's own check that its prebuilt binary loads (a fork of
    // Node, under the same preload, on Linux always), not a build, a download or a GPU probe.
    expect(attempts.filter((a) => a.kind === 'process' && !(a.what === 'child_process.fork' && /node-llama-cpp\/dist\/bindings\/utils\/testBindingBinary\.js$/.test(a.detail ?? "")))).toEqual([])
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest).toMatchObject({ format: 'gguf', nodeLlamaCpp: '3.22.1' })
    expect(readdirSync(out)).toEqual(['result.json'])
    expect(readdirSync(home, { recursive: true })).toEqual([])
    expect(readdirSync(tmp, { recursive: true })).toEqual([])
    expect(snapshot(models)).toEqual(modelsBefore)
    expect(packages.map(snapshot)).toEqual(before)
  }, 180_000)
})
