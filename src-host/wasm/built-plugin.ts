// The product builds as `npm run build` writes them (build/<flavor>.wasm), read the same way by every tool and
// test: a missing build is an error naming the file and the command that makes it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Flavor } from "../host/vm.ts";
import { REPO_ROOT } from "./compile-as.ts";

export function builtPluginPath(flavor: Flavor): string {
  return path.join(REPO_ROOT, "build", `${flavor}.wasm`);
}

/** The bytes of build/<flavor>.wasm. */
export function readBuiltPlugin(flavor: Flavor): Uint8Array<ArrayBuffer> {
  const file = builtPluginPath(flavor);
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
