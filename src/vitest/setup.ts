/**
 * The setup file the plugin adds to every project: registers the sceptic matchers
 * on Vitest's `expect`, so `expect(result).toHaveOrderConsistency(…)` works in any
 * test file, not only inside `describeDecisions`.
 */
import { expect } from 'vitest'
import { scepticMatchers } from './assertions/matchers.ts'

expect.extend(scepticMatchers)
