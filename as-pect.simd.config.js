// The specs of the byte-level code that has a SIMD and a scalar path (string runs, scanner, decoder, extraction,
// chain), run again with WebAssembly SIMD enabled (as-pect.simd.asconfig.json): `npm run test:as` runs every
// spec on the scalar path, this runs these on the SIMD path, which the shipped builds take.
import base from "./as-pect.config.js";

const SIMD_SPECS = [
  "tests/as/json-scanner.spec.ts",
  "tests/as/string-runs.spec.ts",
  "tests/as/extract.spec.ts",
  "tests/as/chain.spec.ts",
  "tests/as/xxh64.spec.ts",
];

export default { ...base, entries: process.env.ASPECT_ONLY ? process.env.ASPECT_ONLY.split(",") : SIMD_SPECS };
