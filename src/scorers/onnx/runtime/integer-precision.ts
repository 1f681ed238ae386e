/**
 * ORT's `session.x64quantprecision` (a session config entry, under `extra.session`): on x86-64
 * CPUs without VNNI (AVX2, AVX-512 without VNNI), ORT computes U8S8 integer products (the int8
 * exports of ORT's dynamic quantization, Optimum's `model_quantized.onnx`) with VPMADDUBSW,
 * whose int16 pair sums saturate (255 × 127 × 2 > 32767). With it, those CPUs compute U8U8
 * products instead, exact in int32; CPUs with VNNI ignore it (their VPDPBUSD is exact). Without
 * it a fixture's int8 export strayed from fp32 by 0.116 of the logits' range on an AVX2 CPU
 * and by under 0.05 on an AVX-512 VNNI one (docs/onnx-models.md, "Which CPU").
 */
export const EXACT_INTEGER_PRODUCTS = { x64quantprecision: '1' } as const
