// Progress of one policy's run, for stderr: virtual time reached, requests sent, and an ETA from the wall time
// spent so far. A run of minutes says where it is; a short one says nothing (the first line waits `everyMs`).
export interface ProgressPoint {
  policy: string;
  virtualS: number;
  totalVirtualS: number;
  requests: number;
  wallS: number;
}

export function formatProgress(p: ProgressPoint): string {
  const share = p.totalVirtualS > 0 ? Math.min(1, p.virtualS / p.totalVirtualS) : 0;
  const eta = share > 0 ? (p.wallS * (1 - share)) / share : NaN;
  const etaText = Number.isFinite(eta) ? `ETA ${eta.toFixed(0)} s` : "ETA unknown";
  return `sim: ${p.policy} ${p.virtualS.toFixed(0)}/${p.totalVirtualS.toFixed(0)} s virtual (${(share * 100).toFixed(0)}%), ` +
    `${p.requests} requests, ${p.wallS.toFixed(0)} s wall, ${etaText}`;
}

/** Calls `report` at most once per `everyMs` of wall time. */
export class ProgressThrottle {
  private next: number;

  constructor(
    private readonly everyMs: number,
    private readonly report: (p: ProgressPoint) => void,
    private readonly startMs: number = performance.now(),
  ) {
    this.next = startMs + everyMs;
  }

  maybeReport(nowMs: number, point: Omit<ProgressPoint, "wallS">): void {
    if (nowMs < this.next) return;
    this.next = nowMs + this.everyMs;
    this.report({ ...point, wallS: (nowMs - this.startMs) / 1000 });
  }
}
