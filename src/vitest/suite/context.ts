/**
 * The suite context through Vitest's provide/inject (docs/design.md#vitest-mechanics-the-code-relies-on):
 * tests run in other processes, so this is the plugin's channel to them.
 */
import type {} from 'vitest'
import { inject } from 'vitest'
import type { ScepticContext } from '../../suite/context.ts'

declare module 'vitest' {
  interface ProvidedContext {
    /** Provided by `sceptic()` from `vitest-sceptic/plugin`. */
    sceptic: ScepticContext
  }
}

/** The provided context, or `undefined` when the plugin is not in use. */
export function scepticContext(): ScepticContext | undefined {
  try {
    return inject('sceptic') ?? undefined
  } catch {
    return undefined
  }
}
