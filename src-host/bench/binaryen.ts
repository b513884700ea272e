// binaryen, loaded once for the benches' module rewrites. Its package is ESM with a top-level await, so it is
// imported when first needed (resolved from this repository's node_modules), not at the benches' start.
import { createRequire } from "node:module";
import type binaryenModule from "binaryen";

export type Binaryen = typeof binaryenModule;

let loaded: Binaryen | null = null;

export async function loadBinaryen(): Promise<Binaryen> {
  if (!loaded) {
    const path = createRequire(import.meta.url).resolve("binaryen");
    loaded = ((await import(path)) as { default: Binaryen }).default;
  }
  return loaded;
}
