/**
 * The CPU kind that scored a run: the instruction-set family whose kernels onnxruntime and
 * llama.cpp pick, named as the report and the manifest show it. Integer (int8, 4-bit) kernels
 * differ by kind: without VNNI, x86-64 CPUs sum int8 products in saturating int16 pairs, so a
 * quantized model's scores are only comparable between runs on the same kind
 * (docs/onnx-models.md, "Which CPU").
 */
import { readFileSync } from 'node:fs'
import { arch, cpus, platform } from 'node:os'

/** The kinds, from the most capable integer units down. */
export const CPU_KINDS = ['x86-64 AVX-512 VNNI', 'x86-64 AVX-VNNI', 'x86-64 AVX-512', 'x86-64 AVX2', 'x86-64', 'arm64 dot product', 'arm64'] as const
export type CpuKind = (typeof CPU_KINDS)[number] | `other ${string}`

/** The kind named by a Linux `/proc/cpuinfo` flags (x86-64) or Features (arm64) list, for `architecture` (`process.arch`). */
export function cpuKindOf(architecture: string, features: readonly string[]): CpuKind {
  const has = new Set(features)
  if (architecture === 'x64') {
    if (has.has('avx512_vnni')) return 'x86-64 AVX-512 VNNI'
    if (has.has('avx_vnni')) return 'x86-64 AVX-VNNI'
    if (has.has('avx512f') && has.has('avx512bw')) return 'x86-64 AVX-512'
    if (has.has('avx2')) return 'x86-64 AVX2'
    return 'x86-64'
  }
  if (architecture === 'arm64') return has.has('asimddp') ? 'arm64 dot product' : 'arm64'
  return `other ${architecture}`
}

/** The feature list of `/proc/cpuinfo`'s text: its first `flags` (x86) or `Features` (arm) line. */
export function cpuFeatures(cpuinfo: string): string[] {
  return (/^(?:flags|Features)\s*:(.*)$/m.exec(cpuinfo)?.[1] ?? '').trim().split(/\s+/).filter(Boolean)
}

let cached: { kind: CpuKind; model: string } | undefined

/**
 * This machine's CPU kind and model name. On Linux from `/proc/cpuinfo`; elsewhere (macOS,
 * Windows) the architecture alone (`x86-64`, `arm64`: Apple's arm64 CPUs all have the dot
 * product, but no file says so). Under a user-mode emulator (qemu-user) the file is the host's.
 */
export function cpuKind(): { kind: CpuKind; model: string } {
  if (cached) return cached
  let features: string[] = []
  if (platform() === 'linux') {
    try {
      features = cpuFeatures(readFileSync('/proc/cpuinfo', 'utf8'))
    } catch {
      // A sandbox without /proc: the architecture alone.
    }
  } else if (platform() === 'darwin' && arch() === 'arm64') features = ['asimddp']
  cached = { kind: cpuKindOf(arch(), features), model: cpus()[0]?.model.trim() ?? '?' }
  return cached
}
