/** Bounds and defaults of a run's settings that the CLI's `--help` prints: a module without zod, so `--help` loads none. */

/** Most epochs a run takes: every epoch is held per decision until the run ends. */
export const MAX_EPOCHS = 1000

/** Default share of decisions `pride` samples to estimate the slot prior: 0.05 (PriDe's α). */
export const DEFAULT_PRIDE_FRACTION = 0.05
