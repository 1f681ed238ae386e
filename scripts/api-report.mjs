// The public API report: for each entry point in package.json `exports`, every exported
// name and its kind, read from the built declaration file (dist/**/*.d.ts) with the
// TypeScript compiler API. `node scripts/api-report.mjs` rewrites api/*.api.txt (npm run
// api:update); `--check` compares instead and exits 1 on a difference, so a change to the
// public surface is a visible diff in review.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** `{ entry: '.', name: 'index', types: '/abs/dist/index.d.ts' }` for each exported entry with types. */
export function entries(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([entry, target]) => ({
      entry,
      name: entry === '.' ? 'index' : entry.slice(2).replaceAll('/', '-'),
      types: join(root, target.types),
    }))
}

/** How a symbol is declared: function, class, interface, type, const, enum or namespace. */
function kindOf(symbol, checker) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
  const f = target.flags
  const kinds = []
  if (f & ts.SymbolFlags.Class) kinds.push('class')
  else if (f & ts.SymbolFlags.Function) kinds.push('function')
  else if (f & ts.SymbolFlags.Variable) kinds.push('const')
  if (f & ts.SymbolFlags.Interface) kinds.push('interface')
  if (f & ts.SymbolFlags.TypeAlias) kinds.push('type')
  if (f & ts.SymbolFlags.Enum) kinds.push('enum')
  if (f & ts.SymbolFlags.Module) kinds.push('namespace')
  return kinds.join('+') || 'unknown'
}

/** The report text of one declaration file: `kind name` lines, sorted by name. */
export function report(typesFile) {
  const program = ts.createProgram([typesFile], { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(typesFile)
  if (!source) throw new Error(`${typesFile} not found: run npm run build first`)
  const moduleSymbol = checker.getSymbolAtLocation(source)
  const exported = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []
  const lines = exported.map((symbol) => `${kindOf(symbol, checker)} ${symbol.getName()}`)
  lines.sort((a, b) => {
    const [na, nb] = [a.split(' ')[1], b.split(' ')[1]]
    return na < nb ? -1 : na > nb ? 1 : 0
  })
  return lines.join('\n') + '\n'
}

/** Each entry's report file and text. */
export function reports(root = ROOT) {
  return entries(root).map(({ entry, name, types }) => ({ entry, file: join(root, 'api', `${name}.api.txt`), text: `# vitest-sceptic${entry === '.' ? '' : entry.slice(1)}\n` + report(types) }))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  let differs = false
  for (const { file, text } of reports()) {
    const old = existsSync(file) ? readFileSync(file, 'utf8') : null
    if (check) {
      if (old !== text) {
        differs = true
        console.error(`${file} differs from the built API; if the change is meant, run npm run api:update and commit it`)
      }
    } else {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, text)
    }
  }
  process.exit(differs ? 1 : 0)
}
