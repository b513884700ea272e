// Writes the canonical prompt stream (format in stream-format.ts). It reads a conversation either inline,
// from the scanner that validates the body (one pass over the bytes), or later from recorded value spans.
// Within a message or part the members are written in a fixed order whatever their order in the document:
// the common orders (role before content, type before text) go out during the scan; anything that arrives
// early is recorded as a span and written from it when the object ends. The shared output and halt state
// is in emit-core.ts, entries in message-entries.ts, their content in content-parts.ts, prompt arrays in
// prompt-strings.ts.
import { JsonScanner, JsonToken, StepBudget } from "../json/scanner";
import { ContentPartWriter } from "./content-parts";
import { EmitCore, EmitHalt, MessageRole } from "./emit-core";
import { WrittenSpan } from "./written-span";
import { MessageEntryWriter } from "./message-entries";
import { writePromptStrings } from "./prompt-strings";
import { StreamWriter } from "./stream-writer";

/** Conversation sections that can be written inline. */
export enum Section {
  Messages = 0,
  Input = 1,
  Prompt = 2,
}

export class PromptEmitter {
  /** The stream buffer. */
  readonly main: StreamWriter;
  /** Sections written apart from main: those that precede an inline one, and the tools (EmitCore.assemble). */
  readonly head: StreamWriter;
  /** openInline accepted the section: continue it with finishInline. */
  inline: bool = false;

  private readonly core: EmitCore;
  private readonly content: ContentPartWriter;
  private readonly entryWriter: MessageEntryWriter;
  private readonly spanScanner: JsonScanner; // sections read from spans

  constructor(streamCapBytes: i32, maxDepth: i32, budget: StepBudget) {
    const core = new EmitCore(streamCapBytes, maxDepth, budget);
    this.core = core;
    this.main = core.main;
    this.head = core.head;
    const content = new ContentPartWriter(core);
    this.content = content;
    this.entryWriter = new MessageEntryWriter(core, content, maxDepth);
    this.spanScanner = new JsonScanner(maxDepth);
  }

  /** Where output goes now: main or head. */
  get writer(): StreamWriter {
    return this.core.writer;
  }

  set writer(w: StreamWriter) {
    this.core.writer = w;
  }

  /** EmitHalt code once emission stopped early. */
  get halt(): i32 {
    return this.core.halt;
  }

  set halt(h: i32) {
    this.core.halt = h;
  }

  /** A content block only the Anthropic Messages API has (image source, tool_use, tool_result) was seen. */
  get sawAnthropicBlock(): bool {
    return this.core.sawAnthropicBlock;
  }

  /** The first whole "user" message record in the stream (after assemble). */
  get firstUser(): WrittenSpan {
    return this.core.firstUser;
  }

  /** The last whole "assistant" message record in the stream (after assemble). */
  get lastAssistant(): WrittenSpan {
    return this.core.lastAssistant;
  }

  /** Puts the sections written into head where they belong (EmitCore.assemble). */
  assemble(leadingInHead: bool): void {
    this.core.assemble(leadingInHead);
  }

  /** The first conversation section ended (EmitCore.conversationEnds). */
  conversationEnds(): void {
    this.core.conversationEnds();
  }

  /** FS tag US json for a tools section, written apart (EmitCore.toolsRecord). */
  toolsRecord(tag: string, start: usize, end: usize): void {
    this.core.toolsRecord(tag, start, end);
  }

  /** toolsRecord's record already written in src (EmitCore.toolsRecordWritten); false when it must be read again. */
  toolsRecordWritten(src: StreamWriter, steps: i32): bool {
    return this.core.toolsRecordWritten(src, steps);
  }

  reset(): void {
    this.core.reset();
    this.inline = false;
  }

  /** True once emission must stop; turns a full writer into EmitHalt.StreamFull. */
  stopped(): bool {
    return this.core.stopped();
  }

  // ---- Inline sections (during the validating scan) ----

  /**
   * Reads the first token of the value of a conversation section from sc, the scanner of the body. Sets
   * inline when the section is written inline: an array, or a string input / prompt (already written by
   * this read). Otherwise nothing is written and the value is left to span mode.
   */
  openInline(sc: JsonScanner, section: i32): i32 {
    const core = this.core;
    const w = core.writer;
    const mark = w.len;
    const markFull = w.full;
    if (section == Section.Messages) {
      const t = sc.next();
      this.inline = t == JsonToken.ArrStart;
      return t;
    }
    if (section == Section.Input) core.messageHead("user");
    else core.recordHead("prompt");
    const t = w.nextDecoded(sc);
    this.inline = t == JsonToken.String || t == JsonToken.ArrStart;
    // An input array holds messages with their own heads; the prompt head stays for prompt strings.
    if (!this.inline || (t == JsonToken.ArrStart && section == Section.Input)) w.truncate(mark, markFull);
    else core.conversationStarts(mark);
    return t;
  }

  /**
   * Writes the rest of an inline section whose first token was t and reads sc to the end of the value
   * even if writing stopped. Returns the last token of the value, or Error / Budget.
   */
  finishInline(sc: JsonScanner, section: i32, t: i32): i32 {
    if (t != JsonToken.ArrStart) return t;
    const outer = sc.depth - 1;
    if (section == Section.Prompt) writePromptStrings(this.core, sc);
    else this.entryWriter.entries(sc);
    let r = sc.token;
    while (sc.depth > outer) {
      r = sc.next();
      if (r >= JsonToken.End) break;
    }
    this.core.ok(r);
    return r;
  }

  // ---- Sections from recorded spans (after the scan) ----

  /** FS tag US json: the value [start, end) minified, a record of the conversation. */
  record(tag: string, start: usize, end: usize): void {
    this.core.conversationStarts(this.core.writer.len);
    this.core.record(tag, start, end);
  }

  /** FS tag US value: the text of a string value, minified JSON otherwise. */
  field(tag: string, start: usize, end: usize, token: i32): void {
    this.core.recordHead(tag);
    this.core.value(start, end, token);
  }

  /** RS role US content for the content value [start, end) whose first token is token. */
  message(role: string, start: usize, end: usize, token: i32): void {
    const recordStart = this.core.writer.len;
    const r = role == "user" ? MessageRole.User : role == "system" ? MessageRole.System : MessageRole.Other;
    if (r != MessageRole.System) this.core.conversationStarts(recordStart);
    this.core.messageHead(role);
    this.content.contentAt(this.spanScanner, start, end, token);
    this.core.messageEnded(r, recordStart);
  }

  /** One entry per element of the array [start, end): messages, or Responses input items. */
  entriesAt(start: usize, end: usize): void {
    const core = this.core;
    const sc = this.spanScanner;
    sc.resetShared(start, end - start, core.budget);
    if (core.ok(sc.next())) this.entryWriter.entries(sc);
  }

  /** FS "prompt" US text (GS text)* for a completions prompt; token ids halt with TokenArray. */
  promptAt(start: usize, end: usize, token: i32): void {
    const core = this.core;
    if (token == JsonToken.Number) {
      core.halt = EmitHalt.TokenArray;
      return;
    }
    core.conversationStarts(core.writer.len);
    core.recordHead("prompt");
    if (token != JsonToken.ArrStart) {
      core.value(start, end, token);
      return;
    }
    const sc = this.spanScanner;
    sc.resetShared(start, end - start, core.budget);
    if (core.ok(sc.next())) writePromptStrings(core, sc);
  }
}
