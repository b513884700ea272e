// Starts gateways and test upstreams for a test file and closes them all after it (gateways first).
import { after } from "node:test";
import { startGateway, type GatewayHandle, type GatewayOptions } from "../../src-host/gateway/gateway.ts";
import { LogCollector, startUpstream, type TestUpstream } from "./node-upstreams.ts";

export interface GatewayHarness {
  /** A gateway with a slow health check (tests trigger checks themselves) and a 5 s request timeout. */
  gateway(opts: Partial<GatewayOptions> & { upstreams: string[] }, logs?: LogCollector): Promise<GatewayHandle>;
  upstream(name: string, handler?: Parameters<typeof startUpstream>[1]): Promise<TestUpstream>;
  /** Anything else to close after the file, in reverse order of registration. */
  onClose(close: () => Promise<void> | void): void;
}

export function gatewayHarness(): GatewayHarness {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  return {
    async gateway(opts, logs = new LogCollector()) {
      const g = await startGateway({
        requestTimeoutMs: 5000,
        log: logs.sink,
        ...opts,
        healthCheck: { intervalMs: 60_000, timeoutMs: 1000, ...opts.healthCheck },
      });
      cleanups.push(() => g.close());
      return g;
    },
    async upstream(name, handler) {
      const u = await startUpstream(name, handler);
      cleanups.push(() => u.close());
      return u;
    },
    onClose(close) {
      cleanups.push(close);
    },
  };
}
