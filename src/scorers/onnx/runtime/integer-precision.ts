/**
 * ORT's `session.x64quantprecision` (a session config entry, under `extra.session`): on x86-64
 * CPUs without VNNI (AVX2, AVX-512 without VNNI), ORT computes U8S8 integer products (the int8
 * exports of ORT's dynamic quantization, Optimum's `model_quantized.onnx`) with VPMADDUBSW,
 * whose int16 pair sums saturate (255 × 127 × 2 > 32767). With it, ORT turns int8 weights outside
 * [-64, 64] into uint8 and computes slower U8U8 products, exact in int32, wherever its U8S8 and
 * U8U8 kernel tables differ (CPUs without VNNI, and an AVX-512 VNNI one measured too); 7-bit
 * weights (`quantize-model --format int8`) stay U8S8, where they cannot saturate. Without it a
 * fixture's int8 export strayed from fp32 by 0.116 of the logits' range on an AVX2 CPU and by
 * under 0.05 on an AVX-512 VNNI one (docs/onnx-models.md, "Which CPU").
 */
export const EXACT_INTEGER_PRODUCTS = { x64quantprecision: '1' } as const
