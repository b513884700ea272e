// Drives an Engine from the wall clock: one timer armed for the engine's next event time, events
// delivered to the listener of each request. Late timers are harmless: advance() catches up and every
// event keeps the time the engine computed for it.
import type { Engine, EngineEvent, EngineRequest, RequestId } from "./engine.ts";

export type EngineEventListener = (event: EngineEvent) => void;

export class RealtimeEngineDriver {
  private readonly listeners = new Map<RequestId, EngineEventListener>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;

  constructor(
    readonly engine: Engine,
    /** Milliseconds, monotonic. */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Submits now; throws EngineRequestError for a request the engine refuses. */
  submit(req: EngineRequest, listener: EngineEventListener): void {
    if (this.closed) throw new Error("engine driver is closed");
    this.engine.submit(req, this.clock());
    this.listeners.set(req.id, listener);
    this.pump();
  }

  abort(id: RequestId): void {
    if (!this.listeners.delete(id)) return;
    this.engine.abort(id, this.clock());
    this.pump();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.pump();
  };

  private pump(): void {
    if (this.closed) return;
    const events = this.engine.advance(this.clock());
    for (const ev of events) {
      const listener = this.listeners.get(ev.id);
      if (listener === undefined) continue;
      if (ev.type === "finished") this.listeners.delete(ev.id);
      listener(ev);
    }
    const next = this.engine.nextEventTime();
    if (next === Infinity || next >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = next;
    // Rounded up: Node timers run on whole milliseconds and may otherwise fire just before `next`.
    this.timer = setTimeout(this.onTimer, Math.max(0, Math.ceil(next - this.clock())));
  }
}
