// Writes the canonical prompt stream (format in stream-format.ts). It reads a conversation either inline,
// from the scanner that validates the body (one pass over the bytes), or later from recorded value spans.
// Within a message or part the members are written in a fixed order whatever their order in the document:
// the common orders (role before content, type before text) go out during the scan; anything that arrives
// early is recorded as a span and written from it when the object ends.
import { JsonScanner, JsonToken, StepBudget } from "../json/scanner";
import { jsonStringEquals } from "../json/string-compare";
import { FieldSpans } from "./field-spans";
import { writeMinifiedJson } from "./minified-json";
import { StreamWriter } from "./stream-writer";
import { FS, GS, RS, SUB, US } from "./stream-format";

/** Why emission stopped early. */
export enum EmitHalt {
  None = 0,
  Budget = 1,
  StreamFull = 2,
  TokenArray = 3,
  InvalidJson = 4,
}

/** Conversation sections that can be written inline. */
export enum Section {
  Messages = 0,
  Input = 1,
  Prompt = 2,
}

// Members of a message (chat, Anthropic) or Responses input item.
const MESSAGE_KEYS: StaticArray<string> = ["role", "content", "name", "tool_call_id", "tool_calls", "function_call"];
const M_ROLE = 0;
const M_CONTENT = 1;
const M_FIRST_ATTR = 2; // attributes follow in MESSAGE_KEYS order

// Members of a content part.
const PART_KEYS: StaticArray<string> = [
  "type", "text", "image_url", "input_audio", "file", "file_id", "file_data", "filename", "source",
];
const P_TYPE = 0;
const P_TEXT = 1;
const P_IMAGE_URL = 2;
const P_INPUT_AUDIO = 3;
const P_FILE = 4;
const P_FILE_ID = 5;
const P_FILE_DATA = 6;
const P_FILENAME = 7;
const P_SOURCE = 8;

// Members of the small objects inside parts (image_url, input_audio, file, source).
const LEAF_KEYS: StaticArray<string> = ["url", "data", "file_id", "file_data", "filename"];
const L_URL = 0;
const L_DATA = 1;
const L_FILE_ID = 2;
const L_FILE_DATA = 3;
const L_FILENAME = 4;
const NO_FIELD = -1;

export class PromptEmitter {
  /** Where output goes now: main or head. */
  writer: StreamWriter;
  /** The stream buffer. */
  readonly main: StreamWriter;
  /** Sections that precede an inline one, written after the scan and then put in front of main. */
  readonly head: StreamWriter;
  /** EmitHalt code once emission stopped early. */
  halt: i32 = EmitHalt.None;
  /** openInline accepted the section: continue it with finishInline. */
  inline: bool = false;
  /** A content block only the Anthropic Messages API has (image source, tool_use, tool_result) was seen. */
  sawAnthropicBlock: bool = false;

  private readonly budget: StepBudget;
  private readonly spanScanner: JsonScanner; // sections read from spans
  private readonly deferredScanner: JsonScanner; // content recorded before its role
  private readonly leafScanner: JsonScanner; // objects inside parts and minified values
  private readonly messageSpans: FieldSpans = new FieldSpans(MESSAGE_KEYS);
  private readonly partSpans: FieldSpans = new FieldSpans(PART_KEYS);
  private readonly leafSpans: FieldSpans = new FieldSpans(LEAF_KEYS);

  constructor(streamCapBytes: i32, maxDepth: i32, budget: StepBudget) {
    const main = new StreamWriter(streamCapBytes);
    this.main = main;
    this.writer = main;
    this.head = new StreamWriter(streamCapBytes);
    this.budget = budget;
    this.spanScanner = new JsonScanner(maxDepth);
    this.deferredScanner = new JsonScanner(maxDepth);
    this.leafScanner = new JsonScanner(maxDepth);
  }

  reset(): void {
    this.main.reset();
    this.head.reset();
    this.writer = this.main;
    this.halt = EmitHalt.None;
    this.inline = false;
    this.sawAnthropicBlock = false;
  }

  /** True once emission must stop; turns a full writer into EmitHalt.StreamFull. */
  stopped(): bool {
    if (this.halt == EmitHalt.None && this.writer.full) this.halt = EmitHalt.StreamFull;
    return this.halt != EmitHalt.None;
  }

  // ---- Inline sections (during the validating scan) ----

  /**
   * Reads the first token of the value of a conversation section from sc, the scanner of the body. Sets
   * inline when the section is written inline: an array, or a string input / prompt (already written by
   * this read). Otherwise nothing is written and the value is left to span mode.
   */
  openInline(sc: JsonScanner, section: i32): i32 {
    const w = this.writer;
    const mark = w.len;
    const markFull = w.full;
    if (section == Section.Messages) {
      const t = sc.next();
      this.inline = t == JsonToken.ArrStart;
      return t;
    }
    if (section == Section.Input) this.messageHeadLiteral("user");
    else this.recordHead("prompt");
    const t = w.nextDecoded(sc);
    this.inline = t == JsonToken.String || t == JsonToken.ArrStart;
    // An input array holds messages with their own heads; the prompt head stays for prompt strings.
    if (!this.inline || (t == JsonToken.ArrStart && section == Section.Input)) w.truncate(mark, markFull);
    return t;
  }

  /**
   * Writes the rest of an inline section whose first token was t and reads sc to the end of the value
   * even if writing stopped. Returns the last token of the value, or Error / Budget.
   */
  finishInline(sc: JsonScanner, section: i32, t: i32): i32 {
    if (t != JsonToken.ArrStart) return t;
    const outer = sc.depth - 1;
    if (section == Section.Prompt) this.promptStrings(sc);
    else this.entries(sc);
    let r = sc.token;
    while (sc.depth > outer) {
      r = sc.next();
      if (r >= JsonToken.End) break;
    }
    this.ok(r);
    return r;
  }

  // ---- Sections from recorded spans (after the scan) ----

  /** FS tag US json: the value [start, end) minified. */
  record(tag: string, start: usize, end: usize): void {
    this.recordHead(tag);
    this.json(start, end);
  }

  /** RS role US content for the content value [start, end) whose first token is token. */
  message(role: string, start: usize, end: usize, token: i32): void {
    this.messageHeadLiteral(role);
    this.contentAt(this.spanScanner, start, end, token);
  }

  /** One entry per element of the array [start, end): messages, or Responses input items. */
  entriesAt(start: usize, end: usize): void {
    const sc = this.spanScanner;
    sc.resetShared(start, end - start, this.budget);
    if (this.ok(sc.next())) this.entries(sc);
  }

  /** FS "prompt" US text (GS text)* for a completions prompt; token ids halt with TokenArray. */
  promptAt(start: usize, end: usize, token: i32): void {
    if (token == JsonToken.Number) {
      this.halt = EmitHalt.TokenArray;
      return;
    }
    this.recordHead("prompt");
    if (token != JsonToken.ArrStart) {
      this.value(start, end, token);
      return;
    }
    const sc = this.spanScanner;
    sc.resetShared(start, end - start, this.budget);
    if (this.ok(sc.next())) this.promptStrings(sc);
  }

  // ---- Shared by both modes ----

  // Records Budget / Error tokens as a halt; true while emission may go on.
  private ok(t: i32): bool {
    if (t == JsonToken.Budget) {
      if (this.halt == EmitHalt.None) this.halt = EmitHalt.Budget;
    } else if (t == JsonToken.Error) {
      if (this.halt == EmitHalt.None) this.halt = EmitHalt.InvalidJson;
    }
    return !this.stopped();
  }

  private recordHead(tag: string): void {
    const w = this.writer;
    w.byte(FS);
    w.literal(tag);
    w.byte(US);
  }

  private messageHeadLiteral(role: string): void {
    const w = this.writer;
    w.byte(RS);
    w.literal(role);
    w.byte(US);
  }

  // Elements of the array whose ArrStart sc just returned, up to its ArrEnd.
  private entries(sc: JsonScanner): void {
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ArrEnd || !this.ok(t)) return;
      if (t == JsonToken.ObjStart) {
        this.entry(sc);
      } else {
        const start = sc.tokenStart;
        if (!this.ok(sc.skipValue())) return;
        this.record("item", start, sc.pos);
      }
      if (this.stopped()) return;
    }
  }

  // The message or item whose ObjStart sc just returned. The head (RS role US) is written as soon as the
  // role is read, the content right after it if it comes later; whatever came before is written from spans.
  private entry(sc: JsonScanner): void {
    const start = sc.tokenStart;
    const m = this.messageSpans;
    const w = this.writer;
    m.clear();
    let headDone = false;
    let contentDone = false;
    while (true) {
      const k = sc.next();
      if (k == JsonToken.ObjEnd) break;
      if (k != JsonToken.String) {
        this.ok(k);
        return;
      }
      const i = m.indexOfKey(sc);
      if (i == M_ROLE && !headDone) {
        w.byte(RS);
        this.inlineValue(sc, w.nextDecoded(sc));
        w.byte(US);
        headDone = true;
        if (this.stopped()) return;
        continue;
      }
      if (i == M_CONTENT && headDone && !contentDone && !m.has(M_CONTENT)) {
        this.content(sc, w.nextDecoded(sc));
        contentDone = true;
        if (this.stopped()) return;
        continue;
      }
      const v = sc.next();
      if (!this.ok(v)) return;
      const valueStart = sc.tokenStart;
      if (!this.ok(sc.skipValue())) return;
      if (i != M_ROLE && !(i == M_CONTENT && contentDone)) m.set(i, v, valueStart, sc.pos);
    }
    if (!headDone) {
      this.record("item", start, sc.pos);
      return;
    }
    if (!contentDone) {
      this.contentAt(this.deferredScanner, m.start(M_CONTENT), m.end(M_CONTENT), m.token(M_CONTENT));
    }
    // Content only uses the part and leaf spans, so the message spans are intact.
    for (let i = M_FIRST_ATTR; i < MESSAGE_KEYS.length; i++) {
      if (!m.has(i) || this.stopped()) continue;
      w.byte(SUB);
      w.literal(unchecked(MESSAGE_KEYS[i]));
      w.byte(US);
      this.value(m.start(i), m.end(i), m.token(i));
    }
  }

  // The rest of a value whose first token t sc just returned via writer.nextDecoded: nothing more for a
  // string (already written) or null, minified JSON otherwise.
  private inlineValue(sc: JsonScanner, t: i32): void {
    if (t == JsonToken.String || t == JsonToken.Null) return;
    if (this.ok(t)) this.ok(writeMinifiedJson(sc, this.writer));
  }

  // Content from a span, read with sc when it is not a plain string.
  private contentAt(sc: JsonScanner, start: usize, end: usize, token: i32): void {
    if (token == 0 || token == JsonToken.Null) return;
    if (token == JsonToken.String) {
      this.writer.text(start + 1, end - 1);
      return;
    }
    sc.resetShared(start, end - start, this.budget);
    this.content(sc, this.writer.nextDecoded(sc));
  }

  // The content value whose first token t sc just returned via writer.nextDecoded (so a string is written).
  private content(sc: JsonScanner, t: i32): void {
    if (t == JsonToken.ArrStart) this.parts(sc);
    else this.inlineValue(sc, t);
  }

  // Parts of the content array whose ArrStart sc just returned, up to its ArrEnd.
  private parts(sc: JsonScanner): void {
    const w = this.writer;
    let first = true;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ArrEnd || !this.ok(t)) return;
      if (!first) w.byte(GS);
      first = false;
      if (t == JsonToken.ObjStart) {
        this.part(sc);
      } else if (t == JsonToken.String) {
        w.text(sc.start, sc.end);
      } else {
        w.byte(US);
        this.ok(writeMinifiedJson(sc, w));
      }
      if (this.stopped()) return;
    }
  }

  // The part whose ObjStart sc just returned.
  private part(sc: JsonScanner): void {
    const start = sc.tokenStart;
    const p = this.partSpans;
    const w = this.writer;
    p.clear();
    let textDone = false;
    while (true) {
      const k = sc.next();
      if (k == JsonToken.ObjEnd) break;
      if (k != JsonToken.String) {
        this.ok(k);
        return;
      }
      const i = p.indexOfKey(sc);
      if (i == P_TEXT && !textDone && this.isTextPart(p)) {
        // A text part whose type came first: its text goes out during this read.
        this.inlineValue(sc, w.nextDecoded(sc));
        textDone = true;
        if (this.stopped()) return;
        continue;
      }
      const v = sc.next();
      if (!this.ok(v)) return;
      const valueStart = sc.tokenStart;
      if (!this.ok(sc.skipValue())) return;
      p.set(i, v, valueStart, sc.pos);
    }
    if (!textDone) this.partFromSpans(start, sc.pos);
  }

  private isTextPart(p: FieldSpans): bool {
    if (p.token(P_TYPE) != JsonToken.String) return false;
    const ts = p.start(P_TYPE) + 1;
    const te = p.end(P_TYPE) - 1;
    return jsonStringEquals(ts, te, "text") || jsonStringEquals(ts, te, "input_text") || jsonStringEquals(ts, te, "output_text");
  }

  // The part [start, end) whose members are in partSpans.
  private partFromSpans(start: usize, end: usize): void {
    const p = this.partSpans;
    const w = this.writer;
    if (p.token(P_TYPE) == JsonToken.String) {
      const ts = p.start(P_TYPE) + 1;
      const te = p.end(P_TYPE) - 1;
      if (this.isTextPart(p)) {
        this.field(p, P_TEXT);
        return;
      }
      if (jsonStringEquals(ts, te, "image_url")) {
        w.literal("image_url");
        this.members(p, P_IMAGE_URL, L_URL, NO_FIELD, NO_FIELD);
        return;
      }
      if (jsonStringEquals(ts, te, "input_image")) {
        w.literal("input_image");
        w.byte(US);
        this.field(p, P_IMAGE_URL);
        w.byte(US);
        this.field(p, P_FILE_ID);
        return;
      }
      if (jsonStringEquals(ts, te, "image") && p.has(P_SOURCE)) {
        this.sawAnthropicBlock = true;
        w.literal("image");
        this.members(p, P_SOURCE, L_DATA, L_URL, L_FILE_ID);
        return;
      }
      if (jsonStringEquals(ts, te, "input_audio")) {
        w.literal("input_audio");
        this.members(p, P_INPUT_AUDIO, L_DATA, NO_FIELD, NO_FIELD);
        return;
      }
      if (jsonStringEquals(ts, te, "file")) {
        w.literal("file");
        this.members(p, P_FILE, L_FILE_ID, L_FILE_DATA, L_FILENAME);
        return;
      }
      if (jsonStringEquals(ts, te, "input_file")) {
        w.literal("input_file");
        w.byte(US);
        this.field(p, P_FILE_ID);
        w.byte(US);
        this.field(p, P_FILE_DATA);
        w.byte(US);
        this.field(p, P_FILENAME);
        return;
      }
      if (jsonStringEquals(ts, te, "tool_use") || jsonStringEquals(ts, te, "tool_result")) {
        this.sawAnthropicBlock = true;
      }
    }
    w.byte(US);
    this.json(start, end);
  }

  // US f0 [US f1 [US f2]] from the object value of member i of spans; a non-object value is f0 alone
  // (the rest empty), e.g. image_url given as a plain string.
  private members(spans: FieldSpans, i: i32, f0: i32, f1: i32, f2: i32): void {
    const w = this.writer;
    if (spans.token(i) != JsonToken.ObjStart) {
      w.byte(US);
      this.field(spans, i);
      if (f1 != NO_FIELD) w.byte(US);
      if (f2 != NO_FIELD) w.byte(US);
      return;
    }
    const sc = this.leafScanner;
    const start = spans.start(i);
    sc.resetShared(start, spans.end(i) - start, this.budget);
    if (!this.ok(sc.next())) return;
    const leaf = this.leafSpans;
    if (!this.ok(leaf.collect(sc))) return;
    w.byte(US);
    this.field(leaf, f0);
    if (f1 != NO_FIELD) {
      w.byte(US);
      this.field(leaf, f1);
    }
    if (f2 != NO_FIELD) {
      w.byte(US);
      this.field(leaf, f2);
    }
  }

  // Prompt strings of the array whose ArrStart sc just returned (the record head is written).
  private promptStrings(sc: JsonScanner): void {
    const w = this.writer;
    let first = true;
    while (true) {
      const mark = w.len;
      const markFull = w.full;
      if (!first) w.byte(GS);
      const t = w.nextDecoded(sc);
      if (t == JsonToken.ArrEnd) {
        w.truncate(mark, markFull);
        return;
      }
      if (!this.ok(t)) return;
      if (t == JsonToken.Number || t == JsonToken.ArrStart) {
        this.halt = EmitHalt.TokenArray;
        return;
      }
      first = false;
      this.inlineValue(sc, t);
      if (this.stopped()) return;
    }
  }

  private field(spans: FieldSpans, i: i32): void {
    this.value(spans.start(i), spans.end(i), spans.token(i));
  }

  // Nothing for an absent or null value, the decoded text of a string, minified JSON otherwise.
  private value(start: usize, end: usize, token: i32): void {
    if (token == 0 || token == JsonToken.Null) return;
    if (token == JsonToken.String) {
      this.writer.text(start + 1, end - 1);
      return;
    }
    this.json(start, end);
  }

  private json(start: usize, end: usize): void {
    if (this.stopped()) return;
    const sc = this.leafScanner;
    sc.resetShared(start, end - start, this.budget);
    if (this.ok(sc.next())) this.ok(writeMinifiedJson(sc, this.writer));
  }
}
