// ONNX Runtime's outputs for a model of tests/qdq/make_qdq_models.py (the reference ptec's int8
// path is checked against), through the npm package onnxruntime-node (CPU execution provider,
// all graph optimizations: ORT fuses the QDQ patterns into its own int8 kernels; with LEVEL
// "disabled" it runs every QuantizeLinear / DequantizeLinear and float op as written, the
// reference semantics of the QDQ format).
//
//   ORT_NODE_MODULE=.../node_modules/onnxruntime-node node tests/qdq/ort_reference.mjs MODEL_DIR OUT.json [LEVEL]
//
// Reads MODEL_DIR/model.onnx and MODEL_DIR/inputs.json, writes {name: {dims, data}} per output.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ort = require(process.env.ORT_NODE_MODULE || "onnxruntime-node");
const [dir, outPath, level] = process.argv.slice(2);
if (!dir || !outPath) {
  console.error("usage: node tests/qdq/ort_reference.mjs MODEL_DIR OUT.json");
  process.exit(2);
}
const feeds = {};
for (const t of JSON.parse(readFileSync(`${dir}/inputs.json`, "utf8"))) {
  const bytes = readFileSync(t.file);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  feeds[t.name] = new ort.Tensor("float32", data, t.shape);
}
const session = await ort.InferenceSession.create(`${dir}/model.onnx`, {
  executionProviders: ["cpu"],
  intraOpNumThreads: 1,
  graphOptimizationLevel: level || "all",
});
const results = await session.run(feeds);
const out = {};
for (const name of session.outputNames) {
  out[name] = { dims: results[name].dims, data: Array.from(results[name].data) };
}
writeFileSync(outPath, JSON.stringify(out));
