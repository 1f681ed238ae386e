/** The cache's file writes: the durable ones of the one home for writing (src/core/files.ts). */
export { createWithHead, writeFileAtomicSync as writeFileAtomic } from '../core/files.ts'
