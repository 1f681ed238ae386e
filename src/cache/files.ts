/** The cache's file writes: the durable ones of the one home for writing (src/core/support/files.ts). */
export { createWithHead, writeFileAtomicSync as writeFileAtomic } from '../core/support/files.ts'
