// What the fuzz runner needs from a target: inputs from a seeded generator, a run that reports property
// violations, a JSON form for the saved corpus, and the plugin's linear memory size for the leak check.
import type { SeededRandom } from "../util/seeded-random.ts";

export interface FuzzTarget<I> {
  readonly name: string;
  generate(rng: SeededRandom): I;
  /** Runs one input; returns the violated properties (empty when all hold). */
  run(input: I): string[];
  toJson(input: I): unknown;
  fromJson(json: unknown): I;
  /** Linear memory of the plugin VMs this target reuses across inputs, or null when it makes one per input. */
  memoryBytes(): number | null;
  close(): void;
}

export const b64 = {
  encode: (b: Uint8Array) => Buffer.from(b).toString("base64"),
  decode: (s: string) => new Uint8Array(Buffer.from(s, "base64")),
};
