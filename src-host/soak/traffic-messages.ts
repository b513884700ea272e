// The messages between the soak runner and its traffic process (backends plus load generator) over IPC.
import type { EngineConfigInput } from "../backend/engine.ts";
import type { LoopDelay } from "./event-loop-delay.ts";
import type { TrafficPlan, TrafficResult } from "./open-loop-traffic.ts";

export type ToTrafficProcess =
  | { type: "start"; backends: number; modelName: string; engine: EngineConfigInput }
  | { type: "run"; plan: TrafficPlan }
  | { type: "close" };

export type FromTrafficProcess =
  | { type: "ready"; backends: Array<{ id: string; address: string }> }
  | { type: "result"; result: TrafficResult; rssBytes: number; cpuSeconds: number; loopDelay: LoopDelay }
  | { type: "failed"; error: string }
  | { type: "closed" };
