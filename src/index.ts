// The package root re-exports the core. The Vitest layer adds `describeDecisions` and matchers here.
export * from './core/index.ts'
