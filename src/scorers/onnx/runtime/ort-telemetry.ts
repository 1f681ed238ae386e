/**
 * onnxruntime-node 1.30's Linux build carries Microsoft's 1DS telemetry: each process that
 * loads it writes `/tmp/mat-debug-<pid>.log`, keeps a device id and an event queue under
 * `~/.cache/Microsoft/DeveloperTools/.onnxruntime` (model file and graph names, the model's
 * metadata, error messages, process metrics) and uploads the queue when it can reach the
 * network. A run touches nothing outside what it owns and sends a user's model details
 * nowhere, so ORT's own switch is set before ORT starts (docs/onnx.md, "Nothing leaves the
 * run"). It must be the process environment: a worker thread's `process.env` is a copy that
 * native code never reads, so the main thread sets it before any worker loads ORT.
 */
import { isMainThread } from 'node:worker_threads'

/** ORT's switch: any value but `0` turns telemetry off (measured on 1.30). */
export const ORT_TELEMETRY_SWITCH = 'ORT_DISABLE_TELEMETRY'

/**
 * Turn ORT's telemetry off for this process unless the user set the switch themselves.
 * Effective only on a main thread before ORT creates its first session there; from a worker
 * thread it changes nothing native code sees (the Vitest plugin sets it in the main process).
 */
export function keepOrtTelemetryOff(): void {
  if (isMainThread && process.env[ORT_TELEMETRY_SWITCH] === undefined) process.env[ORT_TELEMETRY_SWITCH] = '1'
}
