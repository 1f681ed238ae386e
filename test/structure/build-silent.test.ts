// `npm run build` fails when tsup prints anything but its progress: a Rollup warning such as
// "circular dependency between chunks" is a defect in the module layout, and a newcomer
// running the build must not have to wonder whether it matters.
import { describe, expect, it } from 'vitest'
import { unexpectedLines } from '../../scripts/build.mjs'

describe('the build is silent', () => {
  it('passes tsup\'s progress lines and catches a Rollup warning', () => {
    const progress = ['CLI Building entry: {"index":"src/index.ts"}', 'CLI tsup v8.5.1', '\x1b[34mESM\x1b[39m Build start', 'ESM dist/index.js 1.2 KB', 'DTS ⚡️ Build success in 3000ms', 'CJS dist/index.cjs 2 KB', '']
    expect(unexpectedLines(progress.join('\n'))).toEqual([])
    const warning =
      'Export "SuiteDefaults" of module "src/run/settings.ts" was reexported through module "src/vitest/plugin/suite-defaults.ts" while both modules are dependencies of each other and will end up in different chunks by current Rollup settings.'
    expect(unexpectedLines([...progress, warning].join('\n'))).toEqual([warning])
  })
})
