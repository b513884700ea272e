// The specs of the code that has a SIMD and a scalar path (string runs, scanner, decoder, extraction, chain,
// the scores and their totals), run again with WebAssembly SIMD enabled (as-pect.simd.asconfig.json): `npm run test:as` runs every
// spec on the scalar path, this runs these on the SIMD path, which the shipped builds take.
import base from "./as-pect.config.js";

const SIMD_SPECS = [
  "tests/as/json-scanner.spec.ts",
  "tests/as/json-decode-blocks.spec.ts",
  "tests/as/utf8-blocks.spec.ts",
  "tests/as/string-runs.spec.ts",
  "tests/as/extract.spec.ts",
  "tests/as/extract-clients.spec.ts",
  "tests/as/message-fast-path.spec.ts",
  "tests/as/conversation-key.spec.ts",
  "tests/as/answer-credit.spec.ts",
  "tests/as/chain.spec.ts",
  "tests/as/chunk-hash.spec.ts",
  "tests/as/xxh64.spec.ts",
  "tests/as/scheduling-fused-steps.spec.ts",
  "tests/as/scheduling-scheduler.spec.ts",
  "tests/as/scheduling-deferred-scores.spec.ts",
  "tests/as/scheduling-load-guard.spec.ts",
  "tests/as/scheduling-normalize.spec.ts",
  "tests/as/scheduling-normalize-lanes.spec.ts",
  "tests/as/scheduling-candidate-ranges.spec.ts",
];

export default { ...base, entries: process.env.ASPECT_ONLY ? process.env.ASPECT_ONLY.split(",") : SIMD_SPECS };
