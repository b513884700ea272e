// Compiles an AssemblyScript entry of this repository in memory with the asc API, for test fixtures, fuzz and
// bench harnesses: "release" and "debug" apply the repository's asconfig.json targets (the flags of build/*.wasm,
// with the plugin's runtime and abort handler); "standalone" ignores asconfig.json (-O3, converge, no asserts,
// stub runtime) for harnesses that export pure modules and take `env.abort` from the caller, "standalone-simd" the
// same with WebAssembly SIMD enabled (the shipped builds enable it: asconfig.json); "profile" is
// "release" with the bench's stage marks compiled in (assembly/abi/stage-profile.ts), never shipped.
import path from "node:path";
import { fileURLToPath } from "node:url";

export type HarnessBuild = "release" | "debug" | "standalone" | "standalone-simd" | "profile";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const cache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** `entry` is relative to the repository root. Each (entry, build) is compiled once per process. */
export function compileAs(entry: string, build: HarnessBuild): Promise<Uint8Array<ArrayBuffer>> {
  const key = `${entry}@${build}`;
  let compiled = cache.get(key);
  if (!compiled) {
    compiled = compile(entry, build);
    cache.set(key, compiled);
  }
  return compiled;
}

async function compile(entry: string, build: HarnessBuild): Promise<Uint8Array<ArrayBuffer>> {
  const flags =
    build === "standalone" || build === "standalone-simd"
      ? ["--config", "no-asconfig.json", "-O3", "--converge", "--noAssert", "--runtime", "stub", ...(build === "standalone-simd" ? ["--enable", "simd"] : [])]
      : build === "profile"
        ? ["--config", "asconfig.json", "--target", "release", "--use", "PROFILE_STAGES=1"]
        : ["--config", "asconfig.json", "--target", build];
  // Loaded on first compile, never at import: asc.js, when loaded, takes a `--wasm X` out of process.argv and imports X
  // as its compiler, so `npm run sim -- --wasm build/higress.wasm` failed (and lost its --wasm) before any compile.
  const { default: asc } = await import("assemblyscript/asc");
  let binary: Uint8Array<ArrayBuffer> | null = null;
  const { error, stderr } = await asc.main([entry, "--baseDir", REPO_ROOT, "--outFile", "bench-harness.wasm", ...flags], {
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith(".wasm") && typeof contents !== "string") binary = new Uint8Array(contents);
    },
  });
  if (error || !binary) throw new Error(`asc ${entry} (${build}): ${error?.message ?? "no binary"}\n${stderr.toString()}`);
  return binary;
}
