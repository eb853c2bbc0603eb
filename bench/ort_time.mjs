// Times one ONNX model with ONNX Runtime (CPU execution provider) through the npm package
// onnxruntime-node, for bench/compare.sh. Prints one JSON object with per-run latencies (ms).
//
//   node bench/ort_time.mjs MODEL.onnx INPUTS.json ITERATIONS THREADS [WARMUP]
//
// INPUTS.json lists {name, dtype, shape, file} with raw little-endian tensors (written by
// bench/generate_models.py). Spinning is off (session.intra_op.allow_spinning=0): the machine is
// shared, and busy-waiting threads would steal time from the other side of the comparison.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";

const require = createRequire(import.meta.url);
const ort = require(process.env.ORT_NODE_MODULE || "onnxruntime-node");

const [model, manifestPath, iterArg, threadArg, warmupArg] = process.argv.slice(2);
if (!model || !manifestPath) {
  console.error("usage: node bench/ort_time.mjs MODEL.onnx INPUTS.json ITERATIONS THREADS [WARMUP]");
  process.exit(2);
}
const iterations = Number(iterArg || 10);
const threads = Number(threadArg || 1);
const warmup = Number(warmupArg || 2);

const arrays = {
  float32: Float32Array, int64: BigInt64Array, int32: Int32Array, float64: Float64Array,
  uint8: Uint8Array, int8: Int8Array, bool: Uint8Array,
};
const feeds = {};
for (const t of JSON.parse(readFileSync(manifestPath, "utf8"))) {
  const bytes = readFileSync(t.file);
  const Arr = arrays[t.dtype];
  if (!Arr) throw new Error(`${manifestPath}: dtype ${t.dtype} is not supported`);
  const data = new Arr(bytes.buffer, bytes.byteOffset, bytes.byteLength / Arr.BYTES_PER_ELEMENT);
  feeds[t.name] = new ort.Tensor(t.dtype, data, t.shape);
}

const session = await ort.InferenceSession.create(model, {
  executionProviders: ["cpu"],
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  graphOptimizationLevel: "all",
  extra: { session: { intra_op: { allow_spinning: "0" } } },
});
for (let i = 0; i < warmup; ++i) await session.run(feeds);
const latencies = [];
for (let i = 0; i < iterations; ++i) {
  const t0 = performance.now();
  await session.run(feeds);
  latencies.push(performance.now() - t0);
}
console.log(JSON.stringify({ runtime: "onnxruntime", version: ort.env.versions?.common ?? "",
                             model, threads, latencies_ms: latencies }));
