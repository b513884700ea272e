// What every part of the prompt emitter shares: the output writers, why emission stopped (halt), the step
// budget, and the writers of whole values (decoded text for strings, minified JSON otherwise).
import { JsonScanner, JsonToken, StepBudget } from "../json/scanner";
import { FieldSpans } from "./field-spans";
import { writeMinifiedJson } from "./minified-json";
import { StreamWriter } from "./stream-writer";
import { FS, RS } from "./stream-format";
import { WrittenSpan } from "./written-span";
import { jsonStringEquals } from "../json/string-compare";

/** The roles the stream tells apart: user and assistant records are marked, system ones lead the conversation. */
export enum MessageRole {
  Other = 0,
  User = 1,
  Assistant = 2,
  /** system or developer */
  System = 3,
}

/** The role named by the JSON string content [start, end) (escapes allowed when `escaped`). */
export function messageRole(start: usize, end: usize, escaped: bool): MessageRole {
  if (!escaped) return plainMessageRole(start, end);
  if (jsonStringEquals(start, end, "user")) return MessageRole.User;
  if (jsonStringEquals(start, end, "assistant")) return MessageRole.Assistant;
  return jsonStringEquals(start, end, "system") || jsonStringEquals(start, end, "developer") ? MessageRole.System : MessageRole.Other;
}

/** messageRole of content without escapes, which is its own decoding: the bytes compared (little-endian loads).
 *  Inlined where a message's role is read, once per message. */
// @ts-ignore: decorator
@inline export function plainMessageRole(start: usize, end: usize): MessageRole {
  const n = end - start;
  if (n == 4) return load<u32>(start) == 0x72657375 ? MessageRole.User : MessageRole.Other; // "user"
  if (n == 6) return load<u32>(start) == 0x74737973 && load<u16>(start, 4) == 0x6d65 ? MessageRole.System : MessageRole.Other; // "system"
  if (n != 9) return MessageRole.Other;
  const head = load<u64>(start);
  const last = load<u8>(start, 8);
  if (head == 0x6e61747369737361 && last == 0x74) return MessageRole.Assistant; // "assistant"
  return head == 0x65706f6c65766564 && last == 0x72 ? MessageRole.System : MessageRole.Other; // "developer"
}

/** Why emission stopped early. */
export enum EmitHalt {
  None = 0,
  Budget = 1,
  StreamFull = 2,
  TokenArray = 3,
  InvalidJson = 4,
}

export class EmitCore {
  /** Where output goes now: main or head. */
  writer: StreamWriter;
  /** The stream buffer. */
  readonly main: StreamWriter;
  /**
   * Sections written apart from main, then put where they belong by assemble(): those that precede an inline
   * section in front of main, and the tools, from toolsFrom on, where main's leading system records end.
   */
  readonly head: StreamWriter;
  /** Where the tools records start in head (-1: none written). */
  private toolsFrom: i32 = -1;
  /** Where main's first record that is not a system one starts (-1: none yet): the tools go there. */
  private conversationAt: i32 = -1;
  /** EmitHalt code once emission stopped early. */
  halt: i32 = EmitHalt.None;
  /** A content block only the Anthropic Messages API has (image source, tool_use, tool_result) was seen. */
  sawAnthropicBlock: bool = false;
  /** The first whole "user" message record (stream offsets once assemble ran). */
  readonly firstUser: WrittenSpan = new WrittenSpan();
  /** The last whole "assistant" message record (stream offsets once assemble ran). */
  readonly lastAssistant: WrittenSpan = new WrittenSpan();
  readonly budget: StepBudget;
  /** Reads minified values and the small objects inside parts; free again once each such read ends. */
  readonly leafScanner: JsonScanner;

  constructor(streamCapBytes: i32, maxDepth: i32, budget: StepBudget) {
    const main = new StreamWriter(streamCapBytes);
    this.main = main;
    this.writer = main;
    this.head = new StreamWriter(streamCapBytes);
    this.budget = budget;
    this.leafScanner = new JsonScanner(maxDepth);
  }

  reset(): void {
    this.main.reset();
    this.head.reset();
    this.writer = this.main;
    this.halt = EmitHalt.None;
    this.sawAnthropicBlock = false;
    this.firstUser.clear();
    this.lastAssistant.clear();
    this.toolsFrom = -1;
    this.conversationAt = -1;
  }

  /** FS tag US json into head, where assemble() takes it to follow the leading system records. */
  toolsRecord(tag: string, start: usize, end: usize): void {
    const w = this.writer;
    const halt = this.halt;
    if (this.toolsFrom < 0) this.toolsFrom = this.head.len;
    this.writer = this.head;
    this.record(tag, start, end);
    this.writer = w;
    // A full head ends the tools, not the stream: the system records that lead them may still come (assemble cuts).
    if (halt == EmitHalt.None && this.halt == EmitHalt.StreamFull) this.halt = EmitHalt.None;
  }

  /**
   * What toolsRecord writes, when that record is already written whole in src after a read of `steps` steps
   * (tools-record.ts): copied into head, with those steps drawn, when it fits whole and the budget holds them, as
   * toolsRecord would have written it then. False, with nothing changed, otherwise (toolsRecord reads the span).
   */
  toolsRecordWritten(src: StreamWriter, steps: i32): bool {
    const head = this.head;
    const budget = this.budget;
    const n = src.len;
    const at = head.len;
    if (this.halt != EmitHalt.None || head.full || n > head.cap - at || steps > budget.left) return false;
    if (this.toolsFrom < 0) this.toolsFrom = at;
    memory.copy(head.ptr + <usize>at, src.ptr, <usize>n);
    head.len = at + n;
    budget.left -= steps;
    return true;
  }

  /** A record that is not a system one starts at `at` in the writer: the conversation proper begins there. */
  conversationStarts(at: i32): void {
    if (this.conversationAt < 0 && this.writer === this.main) this.conversationAt = at;
  }

  /** The first conversation section written into main ended: if it held only system records, the tools follow it. */
  conversationEnds(): void {
    if (this.writer === this.main && this.conversationAt < 0) this.conversationAt = this.main.len;
  }

  /**
   * Puts head's sections where they belong in the stream: the leading ones (an inline section came first in main)
   * in front, then the tools after the leading system records, as the chat templates of vLLM's and SGLang's model
   * families render a system prompt before the tools (Qwen, Llama 3, DeepSeek, gpt-oss): requests that share tools
   * but not a system prompt share no prefix in the engine, and those that share a system prompt do.
   */
  assemble(leadingInHead: bool): void {
    const head = this.head;
    const main = this.main;
    const toolsFrom = this.toolsFrom >= 0 ? this.toolsFrom : head.len;
    const mainWasFull = main.full;
    const conversationAt = this.conversationAt >= 0 ? this.conversationAt : main.len;
    const cutInLead = leadingInHead && head.full && toolsFrom == head.len;
    let lead = 0;
    let tools = -1;
    if (leadingInHead) lead = max(main.insert(0, head, 0, toolsFrom, cutInLead), 0);
    // Nothing more when the stream ends in the leading part, or main was cut inside its leading system records (the
    // tools come after the cut).
    const cutBefore = cutInLead || (this.conversationAt < 0 && mainWasFull);
    if (toolsFrom < head.len && !cutBefore) tools = main.insert(lead + conversationAt, head, toolsFrom, head.len, head.full);
    this.firstUser.place(lead, toolsFrom, max(tools, 0));
    this.lastAssistant.place(lead, toolsFrom, max(tools, 0));
  }

  /**
   * Marks the end of a message record that started at `start` in the writer: only the first "user" record and the
   * last "assistant" one are kept.
   */
  messageEnded(role: MessageRole, start: i32): void {
    if (role == MessageRole.Other || role == MessageRole.System || this.stopped()) return;
    this.markMessage(role, start);
  }

  /** messageEnded when stopped() was false and nothing was written since. */
  // @ts-ignore: decorator
  @inline messageEndedGoingOn(role: MessageRole, start: i32): void {
    if (role != MessageRole.Other && role != MessageRole.System) this.markMessage(role, start);
  }

  // @ts-ignore: decorator
  @inline private markMessage(role: MessageRole, start: i32): void {
    if (role == MessageRole.User && this.firstUser.marked) return;
    const span = role == MessageRole.User ? this.firstUser : this.lastAssistant;
    span.mark(start, this.writer.len, this.writer === this.head);
  }

  /** True once emission must stop; turns a full writer into EmitHalt.StreamFull. */
  stopped(): bool {
    if (this.halt == EmitHalt.None && this.writer.full) this.halt = EmitHalt.StreamFull;
    return this.halt != EmitHalt.None;
  }

  /** Records Budget / Error tokens as a halt; true while emission may go on. */
  ok(t: i32): bool {
    if (t == JsonToken.Budget) {
      if (this.halt == EmitHalt.None) this.halt = EmitHalt.Budget;
    } else if (t == JsonToken.Error) {
      if (this.halt == EmitHalt.None) this.halt = EmitHalt.InvalidJson;
    }
    return !this.stopped();
  }

  /** FS tag US */
  recordHead(tag: string): void {
    this.writer.head(FS, tag);
  }

  /** RS role US */
  messageHead(role: string): void {
    this.writer.head(RS, role);
  }

  /** FS tag US json: the value [start, end) minified. */
  record(tag: string, start: usize, end: usize): void {
    this.recordHead(tag);
    this.json(start, end);
  }

  /**
   * The rest of a value whose first token t sc just returned via writer.nextDecoded: nothing more for a
   * string (already written) or null, minified JSON otherwise.
   */
  // @ts-ignore: decorator
  @inline inlineValue(sc: JsonScanner, t: i32): void {
    if (t == JsonToken.String || t == JsonToken.Null) return;
    if (this.ok(t)) this.ok(writeMinifiedJson(sc, this.writer));
  }

  /** The value of member i of spans, as value() writes it. */
  field(spans: FieldSpans, i: i32): void {
    this.value(spans.start(i), spans.end(i), spans.token(i));
  }

  /** Nothing for an absent or null value, the decoded text of a string, minified JSON otherwise. */
  value(start: usize, end: usize, token: i32): void {
    if (token == 0 || token == JsonToken.Null) return;
    if (token == JsonToken.String) {
      this.writer.text(start + 1, end - 1);
      return;
    }
    this.json(start, end);
  }

  /** The value [start, end) as minified JSON. */
  json(start: usize, end: usize): void {
    if (this.stopped()) return;
    const sc = this.leafScanner;
    sc.resetShared(start, end - start, this.budget);
    if (this.ok(sc.next())) this.ok(writeMinifiedJson(sc, this.writer));
  }
}
