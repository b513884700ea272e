// Per-request extraction of the model name and the canonical prompt stream from an OpenAI-style body
// (chat completions, completions, Responses) or an Anthropic Messages body.
//
// One validating scan over the body records where the top-level values are and writes the first
// conversation section (messages, input or prompt) inline, and the tools record apart (tools-record.ts). The other sections are then written from their
// spans in canonical order (stream-format.ts), those that precede the inline one into a head buffer that is
// put in front (the tools after the leading system records), so member order never matters; a body whose inline
// section is not its first conversation section is written again from the spans. Everything draws from one step
// budget: one step per token, plus one per token of tools, functions, system and instructions, plus re-reads of the
// rare members that come before the one they depend on (content before role, text before type), plus one per token of
// message attributes and items (written as they are read, they still draw what their write from a span drew). Nothing
// is allocated per request.
import { JsonScanner, JsonToken, StepBudget } from "../json/scanner";
import { EmitHalt } from "./emit-core";
import { WrittenSpan } from "./written-span";
import { FieldSpans } from "./field-spans";
import { PromptEmitter, Section } from "./prompt-emitter";
import { ExtractStatus, RequestKind } from "./status";
import { PrefixSkip } from "./prefix-skip";
import { ToolsRecord } from "./tools-record";

export { ExtractStatus, RequestKind } from "./status";
export { PrefixSkip } from "./prefix-skip";

export const MODEL_CAP_BYTES: i32 = 256;

const TOP_KEYS: StaticArray<string> = [
  "model", "messages", "tools", "functions", "prompt", "input", "instructions", "system", "anthropic_version",
  "cache_salt", "extra_key", "lora_path",
];
const K_MODEL = 0;
const K_MESSAGES = 1;
const K_TOOLS = 2;
const K_FUNCTIONS = 3;
const K_PROMPT = 4;
const K_INPUT = 5;
const K_INSTRUCTIONS = 6;
const K_SYSTEM = 7;
const K_ANTHROPIC_VERSION = 8;
// Fields that namespace the engine's prefix cache (vLLM and SGLang cache_salt, SGLang extra_key and lora_path):
// requests that differ in them share no cached block, so their streams must part at the start.
const K_CACHE_SALT = 9;
const K_EXTRA_KEY = 10;
const K_LORA_PATH = 11;
// Canonical order of the stream's sections. The tools are written apart and go after the leading system records,
// the top-level system (Anthropic) or instructions (Responses) and any system messages (emit-core.ts assemble).
const SECTION_ORDER: StaticArray<i32> = [
  K_CACHE_SALT, K_EXTRA_KEY, K_LORA_PATH, K_SYSTEM, K_INSTRUCTIONS, K_TOOLS, K_FUNCTIONS, K_MESSAGES, K_INPUT, K_PROMPT,
];
// Bit k: key k is one of SECTION_ORDER's.
const SECTION_KEYS: u32 =
  (1 << K_CACHE_SALT) | (1 << K_EXTRA_KEY) | (1 << K_LORA_PATH) | (1 << K_SYSTEM) | (1 << K_INSTRUCTIONS) |
  (1 << K_TOOLS) | (1 << K_FUNCTIONS) | (1 << K_MESSAGES) | (1 << K_INPUT) | (1 << K_PROMPT);

export class RequestExtractor {
  /** Decoded model name (in a buffer owned by the extractor, valid until the next extract). */
  modelPtr: usize;
  modelLen: i32 = 0;
  /** The model name was longer than MODEL_CAP_BYTES and is cut there (on a character boundary). */
  modelTruncated: bool = false;
  /** Canonical prompt stream, UTF-8 (in a buffer owned by the extractor, valid until the next extract). */
  streamPtr: usize;
  streamLen: i32 = 0;
  /** The stream reached streamCapBytes and holds only its first part; still usable as a prefix. */
  streamTruncated: bool = false;
  /** The stream is complete (or truncated at the cap) and can feed the prefix chain. */
  prefixUsable: bool = false;
  /**
   * Byte offset in the stream just past the first whole "user" message, or -1: what a conversation's later turns
   * share with its first one besides everything before it (conversation-tail.ts conversationKey).
   */
  firstUserEnd: i32 = -1;
  /** Byte offset in the stream where that first user message starts, or -1: what precedes it is the preamble. */
  firstUserStart: i32 = -1;
  /**
   * Byte offsets in the stream where the last whole "assistant" message starts and ends, or -1: the answer the
   * endpoint that served the previous turn generated, and still holds (answer-credit.ts).
   */
  lastAssistantStart: i32 = -1;
  lastAssistantEnd: i32 = -1;
  /** Why prefixUsable is false (None when it is true, or when extract() did not return Ok). */
  prefixSkip: i32 = PrefixSkip.None;
  kind: i32 = RequestKind.Unknown;
  /** Steps consumed by the last extract (both passes). */
  stepsUsed: i32 = 0;

  private readonly budget: StepBudget;
  // What the scan's decode of the last string "model" wrote to the model buffer (as decodeJsonString reports it).
  private modelDecodedLen: i32 = 0;
  private modelDecodeFilled: bool = false;
  // Top-level key whose value was written inline, or -1.
  private inlineKey: i32 = -1;
  private readonly scanner: JsonScanner;
  private readonly spans: FieldSpans = new FieldSpans(TOP_KEYS);
  private readonly emitter: PromptEmitter;
  private readonly modelBuffer: ArrayBuffer;
  private readonly toolsRecord: ToolsRecord;

  constructor(streamCapBytes: i32, maxDepth: i32) {
    const budget = new StepBudget();
    const emitter = new PromptEmitter(streamCapBytes, maxDepth, budget);
    const modelBuffer = new ArrayBuffer(MODEL_CAP_BYTES);
    this.budget = budget;
    this.emitter = emitter;
    this.modelBuffer = modelBuffer;
    this.scanner = new JsonScanner(maxDepth);
    this.toolsRecord = new ToolsRecord(streamCapBytes, budget);
    this.modelPtr = changetype<usize>(modelBuffer);
    this.streamPtr = emitter.main.ptr;
  }

  /**
   * Extracts from the body of len bytes at ptr with at most maxSteps scanner steps. kindHint (e.g. from
   * the request path) overrides the detected kind; the stream does not depend on it.
   */
  extract(ptr: usize, len: usize, maxSteps: i32, kindHint: i32 = RequestKind.Unknown): i32 {
    this.modelLen = 0;
    this.modelTruncated = false;
    this.streamLen = 0;
    this.streamTruncated = false;
    this.prefixUsable = false;
    this.prefixSkip = PrefixSkip.None;
    this.kind = kindHint;
    this.budget.left = maxSteps;
    this.inlineKey = -1;
    this.spans.clear();
    this.toolsRecord.clear();
    this.emitter.reset();
    const status = this.run(ptr, len, kindHint);
    this.streamLen = this.emitter.main.len;
    const firstUser = this.emitter.firstUser;
    this.firstUserEnd = this.inStream(firstUser) ? firstUser.end : -1;
    this.firstUserStart = this.inStream(firstUser) ? firstUser.start : -1;
    const answer = this.emitter.lastAssistant;
    const answerKnown = this.inStream(answer);
    this.lastAssistantStart = answerKnown ? answer.start : -1;
    this.lastAssistantEnd = answerKnown ? answer.end : -1;
    this.stepsUsed = maxSteps - this.budget.left;
    return status;
  }

  // A marked record the usable stream holds in full.
  private inStream(span: WrittenSpan): bool {
    return this.prefixUsable && span.marked && span.end <= this.streamLen;
  }

  private run(ptr: usize, len: usize, kindHint: i32): i32 {
    const sc = this.scanner;
    sc.resetShared(ptr, len, this.budget);
    let t = sc.next();
    if (t == JsonToken.ObjStart) {
      t = this.scanMembers(sc);
      if (t == JsonToken.ObjEnd) t = sc.next();
    } else if (t < JsonToken.End) {
      t = sc.skipValue();
      if (t < JsonToken.End) t = sc.next();
      if (t == JsonToken.End) return ExtractStatus.NotObject;
    }
    if (t == JsonToken.Error) return ExtractStatus.InvalidJson;
    const hasModel = this.readModel();
    if (t == JsonToken.Budget) {
      if (!hasModel) return ExtractStatus.BudgetNoModel;
      this.prefixSkip = PrefixSkip.Budget;
      return ExtractStatus.Ok;
    }
    if (!hasModel) return ExtractStatus.MissingModel;
    if (kindHint == RequestKind.Unknown) this.kind = this.detectKind();
    if (!this.hasPrompt()) {
      this.prefixSkip = PrefixSkip.NoPrompt;
      return ExtractStatus.Ok;
    }
    const halt = this.emitRest();
    if (kindHint == RequestKind.Unknown && this.kind == RequestKind.Chat && this.emitter.sawAnthropicBlock) {
      this.kind = RequestKind.Anthropic;
    }
    if (halt == EmitHalt.InvalidJson) return ExtractStatus.InvalidJson; // not expected: the scan validated
    this.streamTruncated = this.emitter.main.full;
    if (halt == EmitHalt.Budget) {
      this.prefixSkip = PrefixSkip.Budget;
    } else if (halt == EmitHalt.TokenArray) {
      this.prefixSkip = PrefixSkip.TokenArray;
    } else {
      this.prefixUsable = true;
    }
    return ExtractStatus.Ok;
  }

  // The validating scan of the top-level members (sc just returned ObjStart). Returns ObjEnd, Error or
  // Budget; member spans recorded before an early stop stay.
  private scanMembers(sc: JsonScanner): i32 {
    const spans = this.spans;
    const e = this.emitter;
    while (true) {
      const k = sc.next();
      if (k != JsonToken.String) return k;
      const i = spans.indexOfKey(sc);
      const section = this.inlineSectionOf(i);
      let v: i32;
      let valueStart: usize;
      let r: i32;
      if (section >= 0) {
        v = e.openInline(sc, section);
        valueStart = sc.tokenStart;
        if (e.inline) {
          this.inlineKey = i;
          r = e.finishInline(sc, section, v);
        } else {
          r = sc.skipValue();
        }
      } else if (i == K_MODEL) {
        // A string decoded into the model buffer as it is read: the last one, as its span is (readModel).
        v = sc.nextDecoded(this.modelPtr, MODEL_CAP_BYTES, 0);
        valueStart = sc.tokenStart;
        if (v == JsonToken.String) {
          this.modelDecodedLen = sc.decodedLen;
          this.modelDecodeFilled = sc.decodeFilled;
        }
        r = v == JsonToken.ObjStart || v == JsonToken.ArrStart ? sc.skipValue() : v;
      } else if (i == K_TOOLS || i == K_FUNCTIONS) {
        // Written now, as the scan reads them, when they are the first such container (tools-record.ts).
        const tools = this.toolsRecord;
        tools.seen(i);
        const stepsBefore = this.budget.left;
        v = sc.next();
        valueStart = sc.tokenStart;
        const container = v == JsonToken.ObjStart || v == JsonToken.ArrStart;
        if (!container) r = v;
        else r = tools.key < 0 ? tools.write(sc, i, unchecked(TOP_KEYS[i]), stepsBefore) : sc.skipValue();
      } else {
        v = sc.next();
        valueStart = sc.tokenStart;
        r = v == JsonToken.ObjStart || v == JsonToken.ArrStart ? sc.skipValue() : v;
      }
      if (v >= JsonToken.End) return v;
      if (r >= JsonToken.End) return r;
      spans.set(i, v, valueStart, sc.pos);
    }
    return JsonToken.Error; // unreachable: every iteration reads a token or returns
  }

  // The Section to try inline for top-level key i, or -1 (only the first conversation section is).
  private inlineSectionOf(i: i32): i32 {
    if (this.inlineKey >= 0) return -1;
    if (i == K_MESSAGES) return Section.Messages;
    if (i == K_INPUT) return Section.Input;
    if (i == K_PROMPT) return Section.Prompt;
    return -1;
  }

  // Writes the sections not written inline: those before the inline one into the head (then put in front of the
  // stream, the tools after its leading system records), those after it appended. Returns the EmitHalt that ends the
  // stream.
  private emitRest(): i32 {
    const e = this.emitter;
    const inlineHalt = e.halt;
    if (inlineHalt == EmitHalt.TokenArray || inlineHalt == EmitHalt.Budget || inlineHalt == EmitHalt.InvalidJson) {
      return inlineHalt;
    }
    // The common body: the inline section is the only one. Nothing is left to write, and with head empty assemble()
    // moves nothing.
    if (this.inlineKey >= 0 && (this.spans.valuedKeys & SECTION_KEYS) == <u32>1 << <u32>this.inlineKey) {
      e.halt = EmitHalt.None;
      return EmitHalt.None;
    }
    // The tools go after the leading system records of the first conversation section in canonical order. When a
    // body has two (messages and input, or either and prompt) and the one written inline is not that first one, the
    // stream is written again from the spans, so that member order does not matter (rare bodies: no API takes both).
    if (this.inlineKey >= 0 && this.firstConversationKey() != this.inlineKey) {
      e.reset();
      this.inlineKey = -1;
    }
    const inlineAt = this.inlineKey >= 0 ? this.orderOf(this.inlineKey) : SECTION_ORDER.length;
    e.halt = EmitHalt.None;
    e.writer = this.inlineKey >= 0 ? e.head : e.main;
    let conversationOpen = true;
    for (let i = 0; i < inlineAt && !e.stopped(); i++) {
      const k = unchecked(SECTION_ORDER[i]);
      if (!this.present(k)) continue;
      this.emitSection(k);
      // As when the first one is inline: the tools go at its end at the latest, not among a later section's records.
      if (conversationOpen && (k == K_MESSAGES || k == K_INPUT || k == K_PROMPT)) {
        conversationOpen = false;
        e.conversationEnds();
      }
    }
    let halt = e.halt;
    e.writer = e.main;
    e.assemble(this.inlineKey >= 0);
    if (this.inlineKey < 0) return halt;
    if (halt != EmitHalt.None && halt != EmitHalt.StreamFull) return halt;
    e.halt = EmitHalt.None;
    for (let i = inlineAt + 1; i < SECTION_ORDER.length && !e.stopped(); i++) {
      const k = unchecked(SECTION_ORDER[i]);
      if (this.present(k)) this.emitSection(k);
    }
    return e.halt;
  }

  // The first conversation section present, in canonical order, or -1.
  private firstConversationKey(): i32 {
    if (this.present(K_MESSAGES)) return K_MESSAGES;
    if (this.present(K_INPUT)) return K_INPUT;
    return this.present(K_PROMPT) ? K_PROMPT : -1;
  }

  private orderOf(k: i32): i32 {
    for (let i = 0; i < SECTION_ORDER.length; i++) if (unchecked(SECTION_ORDER[i]) == k) return i;
    return SECTION_ORDER.length;
  }

  // Section k, which is present.
  private emitSection(k: i32): void {
    const e = this.emitter;
    const s = this.spans;
    const start = s.start(k);
    const end = s.end(k);
    const t = s.token(k);
    if (k == K_CACHE_SALT || k == K_EXTRA_KEY || k == K_LORA_PATH) e.field(unchecked(TOP_KEYS[k]), start, end, t);
    else if (k == K_TOOLS || k == K_FUNCTIONS) this.emitTools(k, start, end);
    else if (k == K_SYSTEM || k == K_INSTRUCTIONS) e.message("system", start, end, t);
    else if (k == K_PROMPT) e.promptAt(start, end, t);
    else if (t == JsonToken.ArrStart) e.entriesAt(start, end);
    else if (k == K_INPUT && t == JsonToken.String) e.message("user", start, end, t);
    else e.record(k == K_INPUT ? "input" : "messages", start, end);
  }

  // The tools record of key k: the one written during the scan when it is k's and goes in whole, else read from the span.
  private emitTools(k: i32, start: usize, end: usize): void {
    const e = this.emitter;
    const tools = this.toolsRecord;
    if (tools.key == k && e.toolsRecordWritten(tools.writer, tools.steps)) return;
    e.toolsRecord(unchecked(TOP_KEYS[k]), start, end);
  }

  // The string "model" the scan decoded into the model buffer; false if there is none.
  private readModel(): bool {
    if (this.spans.token(K_MODEL) != JsonToken.String) return false;
    this.modelLen = this.modelDecodedLen;
    this.modelTruncated = this.modelDecodeFilled;
    return true;
  }

  // Key k was given a value other than null.
  private present(k: i32): bool {
    return (this.spans.valuedKeys & (<u32>1 << <u32>k)) != 0;
  }

  private hasPrompt(): bool {
    return (
      this.present(K_MESSAGES) ||
      this.present(K_INPUT) ||
      this.present(K_PROMPT) ||
      this.present(K_SYSTEM) ||
      this.present(K_INSTRUCTIONS)
    );
  }

  private detectKind(): i32 {
    if (this.present(K_MESSAGES)) {
      return this.present(K_SYSTEM) || this.present(K_ANTHROPIC_VERSION) ? RequestKind.Anthropic : RequestKind.Chat;
    }
    if (this.present(K_INPUT) || this.present(K_INSTRUCTIONS)) return RequestKind.Responses;
    if (this.present(K_PROMPT)) return RequestKind.Completions;
    if (this.present(K_SYSTEM)) return RequestKind.Anthropic;
    return RequestKind.Unknown;
  }
}
