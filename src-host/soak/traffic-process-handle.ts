// The runner's side of the traffic process: fork it, start its backends, run a plan, close it. A process
// that does not exit within the grace period after "close" is killed (by its pid) and reported.
import { fork, type ChildProcess } from "node:child_process";
import type { EngineConfigInput } from "../backend/engine.ts";
import type { LoopDelay } from "./event-loop-delay.ts";
import type { TrafficPlan, TrafficResult } from "./open-loop-traffic.ts";
import type { FromTrafficProcess, ToTrafficProcess } from "./traffic-messages.ts";

export interface TrafficProcessHandle {
  readonly backends: Array<{ id: string; address: string }>;
  /** The traffic and the process's RSS and CPU time (user + system) over the run. */
  run(plan: TrafficPlan): Promise<{ result: TrafficResult; rssBytes: number; cpuSeconds: number; loopDelay: LoopDelay }>;
  /** Resolves true when the process exited by itself after closing its backends. */
  close(graceMs?: number): Promise<boolean>;
}

export async function startTrafficProcess(backends: number, modelName: string, engine: EngineConfigInput): Promise<TrafficProcessHandle> {
  const child: ChildProcess = fork(new URL("./traffic-process.mjs", import.meta.url), [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let exitedCode: number | null | undefined;
  void exited.then((c) => (exitedCode = c));

  const request = <T extends FromTrafficProcess["type"]>(m: ToTrafficProcess, want: T): Promise<Extract<FromTrafficProcess, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (reply: FromTrafficProcess) => {
        if (reply.type !== want && reply.type !== "failed") return;
        cleanup();
        if (reply.type === "failed") reject(new Error(`traffic process: ${reply.error}`));
        else resolve(reply as Extract<FromTrafficProcess, { type: T }>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`traffic process exited (code ${code}) while waiting for "${want}"`));
      };
      const cleanup = () => {
        child.off("message", onMessage);
        child.off("exit", onExit);
      };
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send(m);
    });

  const close = async (graceMs = 5000): Promise<boolean> => {
    if (exitedCode !== undefined) return exitedCode === 0;
    if (child.connected) child.send({ type: "close" } satisfies ToTrafficProcess);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)))]);
    clearTimeout(timer);
    if (code !== "late") return code === 0;
    child.kill("SIGKILL");
    await exited;
    return false;
  };

  try {
    const ready = await request({ type: "start", backends, modelName, engine }, "ready");
    return {
      backends: ready.backends,
      run: async (plan) => {
        const r = await request({ type: "run", plan }, "result");
        return { result: r.result, rssBytes: r.rssBytes, cpuSeconds: r.cpuSeconds, loopDelay: r.loopDelay };
      },
      close,
    };
  } catch (e) {
    await close(1000);
    throw e;
  }
}
