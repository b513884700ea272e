// The soak's traffic side, in its own process so that the gateways' process holds nothing else: simulated
// vLLM backends on 127.0.0.1 and the open-loop load generator. It exits on "close" or when the runner goes
// away; exiting by itself (no forced kill) shows that it left no socket or timer behind.
import { startBackend, type BackendHandle } from "../backend/server.ts";
import { EventLoopDelayMonitor } from "./event-loop-delay.ts";
import { runOpenLoopTraffic } from "./open-loop-traffic.ts";
import type { FromTrafficProcess, ToTrafficProcess } from "./traffic-messages.ts";

const backends: BackendHandle[] = [];
let closing = false;

function send(m: FromTrafficProcess): void {
  process.send?.(m);
}

async function closeAll(): Promise<void> {
  if (closing) return;
  closing = true;
  await Promise.all(backends.map((b) => b.close()));
  send({ type: "closed" });
  process.disconnect?.();
}

async function handle(m: ToTrafficProcess): Promise<void> {
  switch (m.type) {
    case "start":
      for (let i = 0; i < m.backends; i++) {
        backends.push(await startBackend({ id: `backend-${i + 1}`, host: "127.0.0.1", modelName: m.modelName, engine: m.engine }));
      }
      send({ type: "ready", backends: backends.map((b) => ({ id: b.id, address: `127.0.0.1:${b.port}` })) });
      return;
    case "run": {
      const cpu = process.cpuUsage();
      const loop = new EventLoopDelayMonitor().start();
      const result = await runOpenLoopTraffic(m.plan);
      const used = process.cpuUsage(cpu);
      send({ type: "result", result, rssBytes: process.memoryUsage().rss, cpuSeconds: (used.user + used.system) / 1e6, loopDelay: loop.stop() });
      return;
    }
    case "close":
      await closeAll();
      return;
  }
}

process.on("message", (m: ToTrafficProcess) => {
  handle(m).catch((e: unknown) => send({ type: "failed", error: e instanceof Error ? (e.stack ?? e.message) : String(e) }));
});
process.on("disconnect", () => void closeAll());
