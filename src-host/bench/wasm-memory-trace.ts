// Deterministic memory-access traces for a WebAssembly module: binaryen's instrument-memory pass routes every load
// and store through imported functions (env.load_ptr / env.store_ptr give the address, the *_val_* ones the value),
// which call `onAccess` with the address and width and hand the pointer or value back unchanged. Accesses are reported
// as their addresses are computed (a store's before the loads of the value it stores). Slow (a call into JS per
// access): for counting which memory a piece of code touches, never for timing it.
import { loadBinaryen } from "./binaryen.ts";

/** The module with every load and store reported to the env.*_ptr / env.*_val_* imports instrument-memory adds. */
export async function instrumentMemoryTrace(binary: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const b = await loadBinaryen();
  const m = b.readBinary(binary);
  try {
    m.setFeatures(b.Features.All);
    m.runPasses(["instrument-memory"]);
    if (!m.validate()) throw new Error("instrumentMemoryTrace: the traced module does not validate");
    return new Uint8Array(m.emitBinary());
  } finally {
    m.dispose();
  }
}

export type AccessListener = (address: number, bytes: number, store: boolean) => void;

/**
 * The `env` imports of a traced module: load_ptr(id, bytes, offset, ptr) and store_ptr(...) report ptr + offset and
 * return ptr; every other import the pass adds returns its last argument (the value it was given). `rest` supplies
 * the module's own env imports (abort).
 */
export function memoryTraceImports(onAccess: AccessListener, rest: Record<string, unknown> = {}): Record<string, unknown> {
  const own: Record<string, unknown> = {
    ...rest,
    load_ptr: (_id: number, bytes: number, offset: number, ptr: number) => {
      onAccess((ptr >>> 0) + (offset >>> 0), bytes, false);
      return ptr;
    },
    store_ptr: (_id: number, bytes: number, offset: number, ptr: number) => {
      onAccess((ptr >>> 0) + (offset >>> 0), bytes, true);
      return ptr;
    },
  };
  const passThrough = (...args: unknown[]) => args[args.length - 1];
  return new Proxy(own, { get: (target, name: string) => (name in target ? target[name] : passThrough) });
}
