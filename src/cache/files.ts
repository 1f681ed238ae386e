/** The cache's file writes: the durable ones of src/core/support/files.ts. */
export { createWithHead, writeFileAtomicSync as writeFileAtomic, writeFully } from '../core/support/files.ts'
