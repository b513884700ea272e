import { SeededRandom } from "../../util/seeded-random.ts";
import type { TrafficSpec } from "../workload.ts";
import { LongDocQaGenerator } from "./long-doc-qa.ts";
import { MultiTurnGenerator } from "./multi-turn.ts";
import { SharedPrefixGenerator } from "./shared-prefix.ts";
import type { TrafficGenerator } from "./traffic-generator.ts";

/** A fresh generator (its own pick stream) for traffic entry `index` of a workload seeded `seed`. */
export function createGenerator(spec: TrafficSpec, index: number, seed: number): TrafficGenerator {
  const rng = SeededRandom.derive(seed, `picks/${index}`);
  switch (spec.type) {
    case "shared-prefix":
      return new SharedPrefixGenerator(spec, index, seed, rng);
    case "multi-turn":
      return new MultiTurnGenerator(spec, index, seed, rng);
    case "long-doc-qa":
      return new LongDocQaGenerator(spec, index, seed, rng);
  }
}
