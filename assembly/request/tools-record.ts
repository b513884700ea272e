// The tools (or functions) record written during the validating scan, as the body's scanner reads the value, into a
// buffer of its own: the record EmitCore.toolsRecord would write from the value's span, so that the stream takes it by
// a copy (EmitCore.toolsRecordWritten) instead of a second read and minify. Only the key's last container value is
// kept; anything else (a scalar, a record that did not fit) is left to the span.
import { JsonScanner, JsonToken, StepBudget } from "../json/scanner";
import { writeMinifiedJson } from "./minified-json";
import { StreamWriter } from "./stream-writer";
import { FS } from "./stream-format";

// Room for the record: a longer one is read again from its span, as before (agentic clients' tool lists run to tens of
// KiB; the stream buffers are 2 MiB at the defaults).
const TOOLS_RECORD_CAP_BYTES: i32 = 256 * 1024;

export class ToolsRecord {
  /** FS tag US json, whole, when key >= 0. */
  readonly writer: StreamWriter;
  /** Top-level key index whose value the writer holds, or -1. */
  key: i32 = -1;
  /** Steps the value's read drew, its first token included: what reading it again from its span draws. */
  steps: i32 = 0;
  private readonly budget: StepBudget;

  constructor(streamCapBytes: i32, budget: StepBudget) {
    this.writer = new StreamWriter(min(streamCapBytes, TOOLS_RECORD_CAP_BYTES));
    this.budget = budget;
  }

  clear(): void {
    this.key = -1;
  }

  /** Top-level key `key` is being read again: what was written for an earlier value of it is stale. */
  seen(key: i32): void {
    if (this.key == key) this.key = -1;
  }

  /**
   * Writes the record of top-level key `key` (named tag) whose container value sc just opened, drawing stepsBefore the
   * value's first token was read, and reads to the value's last token as skipValue() would (same tokens, same steps).
   * Returns what skipValue() returns.
   */
  write(sc: JsonScanner, key: i32, tag: string, stepsBefore: i32): i32 {
    const w = this.writer;
    w.reset();
    w.head(FS, tag);
    const outer = sc.depth - 1;
    let r = writeMinifiedJson(sc, w);
    // A full writer stops it early: the rest of the value is read as skipValue() reads it.
    while (r < JsonToken.End && sc.depth > outer) r = sc.next();
    if (r >= JsonToken.End || w.full) return r;
    this.key = key;
    this.steps = stepsBefore - this.budget.left;
    return r;
  }
}
