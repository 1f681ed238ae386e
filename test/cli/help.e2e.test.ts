// A CLI people can learn from itself: --help per command lists every option with its
// description and default, from the same table the parser reads; --version.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { closest, commandHelp, parse } from '../../src/cli/args.ts'
import { commands, usage } from '../../src/cli/commands.ts'
import { CLI, ROOT, run, sceptic } from '../helpers/run.ts'

describe('sceptic --help and --version', () => {
  it.each(Object.keys(commands))('`sceptic %s --help` lists every option of its table and exits 0', async (name) => {
    const { code, stdout, stderr } = await sceptic([name, '--help'])
    expect(code, stderr).toBe(0)
    expect(stdout).toBe(commandHelp(commands[name]!))
    for (const [option, spec] of Object.entries(commands[name]!.options)) {
      const line = stdout.split('\n').find((l) => new RegExp(`^ {2}(-\\w, )?--${option}( |$)`).test(l))
      expect(line, `--${option}`).toBeDefined()
      expect(line).toContain(spec.description)
      if (spec.default !== undefined) expect(line).toContain(`(default: ${spec.default}`)
    }
  })

  it('evaluate --help shows the default debias mode, cyclic', async () => {
    const { stdout } = await sceptic(['evaluate', '-h'])
    expect(stdout).toMatch(/^ {2}--debias MODE +option orderings: .*\(default: cyclic\)$/m)
  })

  it('`sceptic --help` names every command and how to get its options; `sceptic help split` = `sceptic split --help`', async () => {
    const top = await sceptic(['--help'])
    expect(top.code).toBe(0)
    for (const name of Object.keys(commands)) expect(top.stdout).toContain(`sceptic ${name}`)
    expect(top.stdout).toContain('sceptic COMMAND --help')
    const help = await sceptic(['help', 'split'])
    expect(help.stdout).toBe(commandHelp(commands.split!))
  })

  it('`sceptic --help` names every option of every command in its usage line (--threads, --sequences too)', async () => {
    const top = await sceptic(['--help'])
    for (const [name, command] of Object.entries(commands)) {
      const usage = top.stdout.split('\n').find((line) => line.startsWith(`  sceptic ${name} `) || line === `  sceptic ${name}`)
      expect(usage, name).toBeDefined()
      const missing = Object.keys(command.options).filter((option) => option !== 'help' && !usage!.includes(`--${option}`))
      expect(missing, `sceptic ${name}`).toEqual([])
    }
  })

  // A command's module loads only when it runs: help is what most spawns of the CLI in scripts
  // and tests ask for, and loading every command (zod among their imports) cost 0.4 CPU s a spawn.
  it.each([['--help'], ['evaluate', '--help'], ['help', 'split']])('`sceptic` %j prints its help without loading zod (command modules load to run)', async (...argv) => {
    const hook = `data:text/javascript,${encodeURIComponent('export async function load(url, context, next) { process.stderr.write("loaded " + url + "\\n"); return next(url, context) }')}`
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)})`)}`
    const { code, stdout, stderr } = await run(process.execPath, ['--import', register, CLI, ...argv])
    expect(code, stderr).toBe(0)
    expect(stdout).toBe(argv[0] === '--help' ? usage() : commandHelp(commands[argv.at(-1) === '--help' ? argv[0]! : argv[1]!]!))
    const loaded = stderr.split('\n').filter((line) => line.startsWith('loaded '))
    expect(loaded.length).toBeGreaterThan(3) // the hook saw the CLI load
    expect(loaded.filter((line) => /\/node_modules\/zod\//.test(line))).toEqual([])
  })

  it('--version prints the package version', async () => {
    const { code, stdout } = await sceptic(['--version'])
    expect(code).toBe(0)
    expect(stdout.trim()).toBe(JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version)
  })
})

describe('did you mean', () => {
  it('suggests the nearest option or command within a small edit distance, and nothing when none is near', () => {
    expect(closest('debais', ['debias', 'seed'])).toBe('debias')
    expect(closest('recordsout', ['records-out', 'json-out'])).toBe('records-out')
    expect(closest('zzz', ['debias', 'seed'])).toBeUndefined()
  })
  it('an unknown option is one line naming the nearest known one', () => {
    expect(() => parse(['--sed', '1'], { seed: { type: 'string', description: 'seed' } }, 'x DATA')).toThrow('unknown option --sed; did you mean --seed? (see: sceptic x --help)')
  })
})
