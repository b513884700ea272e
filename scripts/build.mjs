// Builds the plugin: a Higress module and a stock-Envoy module from one source, each as an optimized
// release (-O3, validated with binaryen) that uses WebAssembly SIMD, the same without SIMD (<name>.scalar.wasm, for
// runtimes that lack it) and a debug build with a source map. Usage: node scripts/build.mjs [--only NAME]
import asc from "assemblyscript/asc";
import binaryen from "binaryen";
import { mkdirSync, readFileSync, statSync } from "node:fs";

export const BUILDS = [
  { name: "higress", entry: "assembly/higress.ts" },
  { name: "envoy", entry: "assembly/envoy.ts" },
];

async function compile(entry, outFile, target) {
  const args = [entry, "--config", "asconfig.json", "--target", target, "--outFile", outFile];
  if (target === "debug") args.push("--textFile", outFile.replace(/\.wasm$/, ".wat"));
  const { error, stderr } = await asc.main(args);
  if (error) {
    process.stderr.write(stderr.toString());
    throw new Error(`asc failed for ${outFile}: ${error.message}`);
  }
}

function validate(file) {
  const mod = binaryen.readBinary(readFileSync(file));
  mod.setFeatures(binaryen.Features.All);
  const ok = mod.validate();
  mod.dispose();
  if (!ok) throw new Error(`binaryen validation failed for ${file}`);
}

async function main() {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
  mkdirSync("build", { recursive: true });
  for (const b of BUILDS) {
    if (only && b.name !== only) continue;
    const release = `build/${b.name}.wasm`;
    const scalar = `build/${b.name}.scalar.wasm`;
    const debug = `build/${b.name}.debug.wasm`;
    await compile(b.entry, release, "release");
    validate(release);
    await compile(b.entry, scalar, "release-scalar");
    validate(scalar);
    await compile(b.entry, debug, "debug");
    validate(debug);
    console.log(`built ${release} (${statSync(release).size} bytes), ${scalar} (${statSync(scalar).size} bytes) and ${debug} (+ .map)`);
  }
}

try {
  await main();
} catch (e) {
  // binaryen installs an uncaughtException handler that prints its own source; keep the message short.
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
}
