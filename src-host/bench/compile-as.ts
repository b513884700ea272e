// Compiles an AssemblyScript entry of this repository in memory with the asc API, for the bench harnesses:
// "plugin" applies the repository's asconfig.json release target (the flags of build/*.wasm); "standalone"
// ignores asconfig.json and uses the flags of the xxh64 oracle test (-O3, converge, no asserts, stub runtime).
import asc from "assemblyscript/asc";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type HarnessBuild = "plugin" | "standalone";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const cache = new Map<string, Promise<Uint8Array>>();

/** `entry` is relative to the repository root. Each (entry, build) is compiled once per process. */
export function compileAs(entry: string, build: HarnessBuild): Promise<Uint8Array> {
  const key = `${entry}@${build}`;
  let compiled = cache.get(key);
  if (!compiled) {
    compiled = compile(entry, build);
    cache.set(key, compiled);
  }
  return compiled;
}

async function compile(entry: string, build: HarnessBuild): Promise<Uint8Array> {
  const flags =
    build === "plugin"
      ? ["--config", "asconfig.json", "--target", "release"]
      : ["--config", "bench-no-asconfig.json", "-O3", "--converge", "--noAssert", "--runtime", "stub"];
  let binary: Uint8Array | null = null;
  const { error, stderr } = await asc.main([entry, "--baseDir", REPO_ROOT, "--outFile", "bench-harness.wasm", ...flags], {
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith(".wasm") && typeof contents !== "string") binary = new Uint8Array(contents);
    },
  });
  if (error || !binary) throw new Error(`asc ${entry} (${build}): ${error?.message ?? "no binary"}\n${stderr.toString()}`);
  return binary;
}
