// The product builds as `npm run build` writes them (build/<flavor>.wasm, which uses WebAssembly SIMD, and
// build/<flavor>.scalar.wasm, which does not), read the same way by every tool and test: a missing build is an
// error naming the file and the command that makes it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Flavor } from "../host/vm.ts";
import { REPO_ROOT } from "./compile-as.ts";

/** The shipped build uses WebAssembly SIMD; the scalar build is for runtimes without it. */
export type BuildVariant = "simd" | "scalar";

export function builtPluginPath(flavor: Flavor, variant: BuildVariant = "simd"): string {
  return path.join(REPO_ROOT, "build", variant === "simd" ? `${flavor}.wasm` : `${flavor}.scalar.wasm`);
}

/** The bytes of build/<flavor>.wasm (or build/<flavor>.scalar.wasm). */
export function readBuiltPlugin(flavor: Flavor, variant: BuildVariant = "simd"): Uint8Array<ArrayBuffer> {
  const file = builtPluginPath(flavor, variant);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return new Uint8Array(readFileSync(file));
}

const modules = new Map<Flavor, WebAssembly.Module>();

/** build/<flavor>.wasm compiled, once per process. */
export function builtPluginModule(flavor: Flavor): WebAssembly.Module {
  let m = modules.get(flavor);
  if (!m) {
    m = new WebAssembly.Module(readBuiltPlugin(flavor));
    modules.set(flavor, m);
  }
  return m;
}
