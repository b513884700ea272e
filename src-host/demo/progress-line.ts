// Progress of a running demo: one line rewritten in place on a terminal, or a plain line every few seconds
// otherwise (CI logs, pipes), so a log never fills with carriage returns.
import type { RunProgress } from "./conversation-runner.ts";

export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export class ProgressLine {
  private lastPrintMs = -Infinity;
  private shown = false;

  constructor(
    private readonly out: ProgressSink,
    /** Non-terminal output: at most one line per this many milliseconds. */
    private readonly intervalMs = 5000,
  ) {}

  static format(label: string, p: RunProgress): string {
    const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
    return `${label}: ${p.done}/${p.total} requests (${pct}%), ${p.inFlight} in flight, ${p.errors} errors, ${(p.elapsedMs / 1000).toFixed(1)} s`;
  }

  update(label: string, p: RunProgress): void {
    const line = ProgressLine.format(label, p);
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[2K${line}`);
      this.shown = true;
      return;
    }
    if (p.elapsedMs - this.lastPrintMs < this.intervalMs && p.done < p.total) return;
    this.lastPrintMs = p.elapsedMs;
    this.out.write(line + "\n");
  }

  /** Ends the in-place line (if any) and prints a final line. */
  done(line: string): void {
    if (this.out.isTTY && this.shown) this.out.write("\r\x1b[2K");
    this.shown = false;
    this.lastPrintMs = -Infinity;
    this.out.write(line + "\n");
  }
}
