// Parses a GGUF file with Hugging Face's own parser (npm @huggingface/gguf) and prints what it
// read as one JSON object, for the interop tests to compare with gguffs' files:
//   node hf_gguf.mjs FILE
// {"metadata": {"version": 3, "tensor_count": "21", "kv_count": "23", "<key>": value, ...},
//  "tensorInfos": [{"name": ..., "shape": ["256", ...], "dtype": 8, "offset": "0"}, ...]}
// BigInts (64-bit counts, shapes, offsets, UINT64/INT64 values) are printed as decimal strings so
// no digit is lost; other numbers as JSON numbers.
import { gguf } from "@huggingface/gguf";

const file = process.argv[2];
const { metadata, tensorInfos } = await gguf(file, { allowLocalFile: true });
const replacer = (_key, value) => (typeof value === "bigint" ? value.toString() : value);
console.log(JSON.stringify({ metadata, tensorInfos }, replacer));
