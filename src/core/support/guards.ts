/** Type guards for reading JSON whose shape is not promised. */

/** A plain object (not an array, not `null`). */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
