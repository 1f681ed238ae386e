// The CPU kind a run records: parsed from /proc/cpuinfo's flags (x86-64) or Features (arm64).
import { readFileSync } from 'node:fs'
import { arch } from 'node:os'
import { describe, expect, it } from 'vitest'
import { CPU_KINDS, cpuFeatures, cpuKind, cpuKindOf } from '../../../src/core/support/cpu-kind.ts'

// Abridged flags lines of real CPUs.
const EPYC_ROME = 'processor\t: 0\nflags\t\t: fpu vme sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 bmi2 sha_ni\nbogomips\t: 4000'
const SKYLAKE_X = 'flags\t\t: fpu sse2 avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl'
const ICE_LAKE = 'flags\t\t: avx2 avx512f avx512bw avx512_vnni avx512_vbmi2'
const ALDER_LAKE = 'flags\t\t: avx avx2 fma avx_vnni'
const GRAVITON2 = 'processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n'
const CORTEX_A72 = 'Features\t: fp asimd evtstrm crc32 cpuid'

describe('cpuKindOf', () => {
  it.each([
    ['x64', EPYC_ROME, 'x86-64 AVX2'],
    ['x64', SKYLAKE_X, 'x86-64 AVX-512'],
    ['x64', ICE_LAKE, 'x86-64 AVX-512 VNNI'],
    ['x64', ALDER_LAKE, 'x86-64 AVX-VNNI'],
    ['x64', 'flags\t\t: fpu sse2', 'x86-64'],
    ['arm64', GRAVITON2, 'arm64 dot product'],
    ['arm64', CORTEX_A72, 'arm64'],
    ['riscv64', '', 'other riscv64'],
  ])('%s %#: %s', (architecture, cpuinfo, kind) => {
    expect(cpuKindOf(architecture, cpuFeatures(cpuinfo))).toBe(kind)
  })

  it('AVX-512 VNNI outranks AVX-VNNI when a CPU has both; avx512f without avx512bw is not AVX-512 for int8 kernels', () => {
    expect(cpuKindOf('x64', ['avx2', 'avx_vnni', 'avx512f', 'avx512bw', 'avx512_vnni'])).toBe('x86-64 AVX-512 VNNI')
    expect(cpuKindOf('x64', ['avx2', 'avx512f'])).toBe('x86-64 AVX2')
  })

  it('a flag is a whole word: avx2 inside another name does not count', () => {
    expect(cpuKindOf('x64', cpuFeatures('flags\t: avx2x notavx512_vnni avx'))).toBe('x86-64')
  })
})

describe('cpuKind on this machine', () => {
  it('names a known kind, the one /proc/cpuinfo gives on Linux', () => {
    const { kind, model } = cpuKind()
    expect(model.length).toBeGreaterThan(0)
    if (process.platform === 'linux') expect(kind).toBe(cpuKindOf(arch(), cpuFeatures(readFileSync('/proc/cpuinfo', 'utf8'))))
    if (arch() === 'x64' || arch() === 'arm64') expect(CPU_KINDS).toContain(kind)
  })
})
