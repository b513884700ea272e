// Message content: a string, or an array of parts (text, image, audio, file, Anthropic blocks). A part is
// written as its text, or as type US fields for the kinds with a fixed field list, or as US json otherwise.
// A text part whose type comes before its text is written during the read; any other part is recorded as
// member spans and written when the object ends. Thinking blocks are left out, separator and all: Anthropic
// drops them from earlier turns itself, so clients may or may not send them back, and a turn must extend the
// previous one either way (as with reasoning_content, which message-entries.ts never reads).
import { JsonScanner, JsonToken } from "../json/scanner";
import { jsonStringEquals } from "../json/string-compare";
import { EmitCore } from "./emit-core";
import { FieldSpans } from "./field-spans";
import { writeMinifiedJson } from "./minified-json";
import { GS, US } from "./stream-format";

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

export class ContentPartWriter {
  private readonly core: EmitCore;
  private readonly partSpans: FieldSpans = new FieldSpans(PART_KEYS);
  private readonly leafSpans: FieldSpans = new FieldSpans(LEAF_KEYS);

  constructor(core: EmitCore) {
    this.core = core;
  }

  /** Content from a span, read with sc when it is not a plain string. */
  contentAt(sc: JsonScanner, start: usize, end: usize, token: i32): void {
    if (token == 0 || token == JsonToken.Null) return;
    const core = this.core;
    if (token == JsonToken.String) {
      core.writer.text(start + 1, end - 1);
      return;
    }
    sc.resetShared(start, end - start, core.budget);
    this.content(sc, core.writer.nextDecoded(sc));
  }

  /** The content value whose first token t sc just returned via writer.nextDecoded (so a string is written). */
  content(sc: JsonScanner, t: i32): void {
    if (t == JsonToken.ArrStart) this.parts(sc);
    else this.core.inlineValue(sc, t);
  }

  // Parts of the content array whose ArrStart sc just returned, up to its ArrEnd.
  private parts(sc: JsonScanner): void {
    const core = this.core;
    const w = core.writer;
    let separate = false; // a part was written: the next one written is preceded by GS
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ArrEnd || !core.ok(t)) return;
      if (t == JsonToken.ObjStart) {
        if (this.part(sc, separate)) separate = true;
      } else {
        if (separate) w.byte(GS);
        separate = true;
        if (t == JsonToken.String) {
          w.text(sc.start, sc.end);
        } else {
          w.byte(US);
          core.ok(writeMinifiedJson(sc, w));
        }
      }
      if (core.stopped()) return;
    }
  }

  // The part whose ObjStart sc just returned, after a GS when `separate`; false when it is left out.
  private part(sc: JsonScanner, separate: bool): bool {
    const start = sc.tokenStart;
    const core = this.core;
    const p = this.partSpans;
    const w = core.writer;
    p.clear();
    let textDone = false;
    while (true) {
      const k = sc.next();
      if (k == JsonToken.ObjEnd) break;
      if (k != JsonToken.String) {
        core.ok(k);
        return true;
      }
      const i = p.indexOfKey(sc);
      if (i == P_TEXT && !textDone && this.isTextPart(p)) {
        // A text part whose type came first: its text goes out during this read.
        if (separate) w.byte(GS);
        core.inlineValue(sc, w.nextDecoded(sc));
        textDone = true;
        if (core.stopped()) return true;
        continue;
      }
      const v = sc.next();
      if (!core.ok(v)) return true;
      const valueStart = sc.tokenStart;
      if (!core.ok(sc.skipValue())) return true;
      p.set(i, v, valueStart, sc.pos);
    }
    if (textDone) return true;
    if (this.isThinkingPart(p)) return false;
    if (separate) w.byte(GS);
    this.partFromSpans(start, sc.pos);
    return true;
  }

  private isThinkingPart(p: FieldSpans): bool {
    return p.stringIs(P_TYPE, "thinking") || p.stringIs(P_TYPE, "redacted_thinking");
  }

  private isTextPart(p: FieldSpans): bool {
    return p.stringIs(P_TYPE, "text") || p.stringIs(P_TYPE, "input_text") || p.stringIs(P_TYPE, "output_text");
  }

  // The part [start, end) whose members are in partSpans.
  private partFromSpans(start: usize, end: usize): void {
    const core = this.core;
    const p = this.partSpans;
    const w = core.writer;
    if (p.token(P_TYPE) == JsonToken.String) {
      const ts = p.start(P_TYPE) + 1;
      const te = p.end(P_TYPE) - 1;
      if (this.isTextPart(p)) {
        core.field(p, P_TEXT);
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
        core.field(p, P_IMAGE_URL);
        w.byte(US);
        core.field(p, P_FILE_ID);
        return;
      }
      if (jsonStringEquals(ts, te, "image") && p.has(P_SOURCE)) {
        core.sawAnthropicBlock = true;
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
        core.field(p, P_FILE_ID);
        w.byte(US);
        core.field(p, P_FILE_DATA);
        w.byte(US);
        core.field(p, P_FILENAME);
        return;
      }
      if (jsonStringEquals(ts, te, "tool_use") || jsonStringEquals(ts, te, "tool_result")) {
        core.sawAnthropicBlock = true;
      }
    }
    w.byte(US);
    core.json(start, end);
  }

  // US f0 [US f1 [US f2]] from the object value of member i of spans; a non-object value is f0 alone
  // (the rest empty), e.g. image_url given as a plain string.
  private members(spans: FieldSpans, i: i32, f0: i32, f1: i32, f2: i32): void {
    const core = this.core;
    const w = core.writer;
    if (spans.token(i) != JsonToken.ObjStart) {
      w.byte(US);
      core.field(spans, i);
      if (f1 != NO_FIELD) w.byte(US);
      if (f2 != NO_FIELD) w.byte(US);
      return;
    }
    const sc = core.leafScanner;
    const start = spans.start(i);
    sc.resetShared(start, spans.end(i) - start, core.budget);
    if (!core.ok(sc.next())) return;
    const leaf = this.leafSpans;
    if (!core.ok(leaf.collect(sc))) return;
    w.byte(US);
    core.field(leaf, f0);
    if (f1 != NO_FIELD) {
      w.byte(US);
      core.field(leaf, f1);
    }
    if (f2 != NO_FIELD) {
      w.byte(US);
      core.field(leaf, f2);
    }
  }
}
