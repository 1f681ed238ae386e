// The GGUF scorer where the user's project lacks node-llama-cpp, or its prebuilt CPU binary:
// a temp project with the built package installed as `npm i -D vitest-sceptic` would and every
// other dependency linked from the repository, so Node's own resolution (not a mock) finds
// nothing. `sceptic evaluate --model x.gguf` and `vitest-sceptic/gguf` each give one line saying
// what to install, exit 2, no stack, and nothing is downloaded or built.
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../helpers/run.ts'
import { installBuilt, REPO, useDistSnapshot } from '../../helpers/vitest.ts'
import { temp, writeTwins } from './helpers.ts'

const dist = useDistSnapshot()
afterAll(() => temp.removeAll())

const INSTALL = 'npm i -E node-llama-cpp@3.22.1 @node-llama-cpp/linux-x64@3.22.1'
const DATA = join(REPO, 'examples/data/tickets.jsonl')

/** A project with vitest-sceptic installed and the repository's packages linked, except those `omit` names (a scope omits all its packages); `copy` are copied, not linked, so their own imports resolve from the project. */
function project(omit: readonly string[], copy: readonly string[] = []): string {
  const dir = temp.make()
  installBuilt(dir, dist())
  const modules = join(dir, 'node_modules')
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === 'vitest-sceptic' || entry.startsWith('.') || omit.includes(entry)) continue
    if (copy.includes(entry)) cpSync(join(REPO, 'node_modules', entry), join(modules, entry), { recursive: true })
    else symlinkSync(join(REPO, 'node_modules', entry), join(modules, entry), 'dir')
  }
  return dir
}

const cli = (dir: string, args: string[]) => run(process.execPath, [join(dir, 'node_modules/vitest-sceptic/dist/cli/main.js'), ...args], { cwd: dir, timeoutMs: 120_000 })

describe('node-llama-cpp is not installed', () => {
  let dir = ''
  let model = ''
  beforeAll(() => {
    dir = project(['node-llama-cpp', '@node-llama-cpp'])
    model = writeTwins(undefined, ['Q8_0']).gguf.Q8_0!
  })

  it('sceptic evaluate --model x.gguf: one line saying what to install, exit 2', async () => {
    const result = await cli(dir, ['evaluate', DATA, '--model', model, '--no-cache'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain(INSTALL)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('vitest-sceptic/gguf imports, and ggufScorer throws a ConfigError with that line', async () => {
    writeFileSync(
      join(dir, 'use.mjs'),
      `import { ggufScorer, ConfigError } from 'vitest-sceptic/gguf'\ntry { ggufScorer({ model: process.argv[2] }); console.log('created') } catch (error) { console.log(JSON.stringify({ config: error instanceof ConfigError, message: error.message })) }\n`,
    )
    const result = await run(process.execPath, [join(dir, 'use.mjs'), model], { cwd: dir })
    expect(result.stderr).toBe('')
    const out = JSON.parse(result.stdout)
    expect(out.config).toBe(true)
    expect(out.message.split('\n')).toHaveLength(1)
    expect(out.message).toContain(INSTALL)
  })
})

describe('node-llama-cpp without its prebuilt CPU binary', () => {
  it('one line naming the binary package, exit 2, and nothing built or downloaded', async () => {
    // node-llama-cpp copied (not linked): it resolves @node-llama-cpp/* from the project, where there is none.
    const dir = project(['@node-llama-cpp'], ['node-llama-cpp'])
    const model = writeTwins(undefined, ['Q8_0']).gguf.Q8_0!
    const before = listing(join(dir, 'node_modules/node-llama-cpp'))
    const result = await cli(dir, ['evaluate', DATA, '--model', model, '--no-cache'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toContain('@node-llama-cpp/linux-x64@3.22.1')
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(listing(join(dir, 'node_modules/node-llama-cpp'))).toEqual(before)
  })
})

function listing(dir: string): string[] {
  mkdirSync(dir, { recursive: true })
  return (readdirSync(dir, { recursive: true }) as string[]).sort()
}
