// Times llama.cpp (node-llama-cpp, prebuilt CPU build, mmap on) loading a model with and without
// checkTensors, alternating, for scripts/bench health: the difference is llama.cpp's own
// validation of the tensor data (ggml_validate_row_data).
//   node load_time.mjs MODEL RUNS
// prints {"with":[ms,...],"without":[ms,...]}
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const [modelPath, runsText] = process.argv.slice(2);
const runs = Number(runsText ?? "5");
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const out = { with: [], without: [] };
const once = async (checkTensors) => {
  const t0 = process.hrtime.bigint();
  const model = await llama.loadModel({ modelPath, useMmap: true, checkTensors });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await model.dispose();
  return ms;
};
await once(false);  // warm-up, not counted
for (let i = 0; i < runs; ++i) {
  out.without.push(await once(false));
  out.with.push(await once(true));
}
console.log(JSON.stringify(out));
