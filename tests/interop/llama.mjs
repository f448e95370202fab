// Runs llama.cpp (npm node-llama-cpp, its prebuilt CPU build) on a GGUF model and prints one JSON
// object on stdout, for the interop tests to compare:
//   node llama.mjs MODEL [--prompt TEXT] [--tokens N] [--embed TEXT] [--check-tensors]
//                        [--probabilities K] [--no-mmap]
// {"loaded":true,"trainContextSize":N,"chatTemplate":"...","tokens":[...],"embedding":[...],
//  "probabilities":[[[id,p],...],...]}   (tokens: the greedy continuation of --prompt;
// probabilities: per step, the K most likely next tokens with their probabilities)
// When llama.cpp refuses the model: {"loaded":false,"error":"..."} and exit code 3.
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const flag = (name) => args.includes(name);
const modelPath = args[0];
const prompt = option("--prompt", undefined);
const nTokens = Number(option("--tokens", "16"));
const embedText = option("--embed", undefined);
const topK = Number(option("--probabilities", "0"));

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
let model;
try {
  model = await llama.loadModel({
    modelPath,
    useMmap: !flag("--no-mmap"),
    checkTensors: flag("--check-tensors"),
  });
} catch (e) {
  console.log(JSON.stringify({ loaded: false, error: String(e && e.message ? e.message : e) }));
  process.exit(3);
}

const out = { loaded: true, trainContextSize: model.trainContextSize };
const template = model.fileInfo?.metadata?.tokenizer?.chat_template;
if (template !== undefined) out.chatTemplate = template;

if (prompt !== undefined) {
  const context = await model.createContext({ contextSize: 256, batchSize: 256, threads: 1 });
  const sequence = context.getSequence();
  let input = model.tokenize(prompt);
  out.promptTokens = input;
  out.tokens = [];
  if (topK > 0) out.probabilities = [];
  const steps = sequence.evaluateWithMetadata(input, { probabilities: topK > 0 }, { temperature: 0 });
  for await (const step of steps) {
    out.tokens.push(step.token);
    if (topK > 0) {
      const best = [...step.probabilities.entries()].sort((a, b) => b[1] - a[1]).slice(0, topK);
      out.probabilities.push(best);
    }
    if (out.tokens.length >= nTokens) break;
  }
  await context.dispose();
}

if (embedText !== undefined) {
  const context = await model.createEmbeddingContext({ contextSize: 256, threads: 1 });
  const embedding = await context.getEmbeddingFor(embedText);
  out.embedding = [...embedding.vector];
  await context.dispose();
}

console.log(JSON.stringify(out));
await model.dispose();
