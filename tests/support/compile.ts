// Compiles an AssemblyScript test fixture with the project's asconfig, once per test process.
import { compileAs } from "../../src-host/wasm/compile-as.ts";

export function compileFixture(entry: string, target: "debug" | "release" = "debug"): Promise<Uint8Array<ArrayBuffer>> {
  return compileAs(entry, target);
}
