// A fault hook for PluginHost (VmOptions.fault) that counts host calls by import name and makes the Nth call
// to one import (or every call from the Nth on) return a chosen status, or throw (a trap inside the host call).
// A forced Ok on a getter returns nothing: the plugin clears its out-params first, so it reads an empty value.
export type FaultAction = { status: number } | "trap";

export class FaultPlan {
  readonly calls = new Map<string, number>();
  armed = false;
  private target: string | null = null;
  private nth = 0;
  private persistent = false;
  private action: FaultAction = { status: 0 };
  fired = 0;

  /** The hook to pass as the `fault` option. */
  readonly hook = (name: string): number | undefined => {
    if (!this.armed) return undefined;
    const n = (this.calls.get(name) ?? 0) + 1;
    this.calls.set(name, n);
    if (name !== this.target || (this.persistent ? n < this.nth : n !== this.nth)) return undefined;
    this.fired++;
    if (this.action === "trap") throw new Error(`injected failure in ${name}`);
    return this.action.status;
  };

  /** Counts calls without failing any. */
  count(): void {
    this.reset();
    this.armed = true;
  }

  /** Fails the nth call to `name` (1-based), or every call from the nth on when persistent. */
  fail(name: string, nth: number, action: FaultAction, persistent = false): void {
    this.reset();
    this.target = name;
    this.nth = nth;
    this.action = action;
    this.persistent = persistent;
    this.armed = true;
  }

  disarm(): void {
    this.armed = false;
    this.target = null;
  }

  private reset(): void {
    this.calls.clear();
    this.fired = 0;
    this.target = null;
  }
}
