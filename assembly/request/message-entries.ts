// The entries of a messages or Responses input array: RS role US content, then SUB name US value for each
// attribute present and not null (name, tool_call_id, tool_calls, function_call) in that order. The head goes
// out as soon as the role is read and the content right after it if it comes later; whatever came earlier is
// recorded as a span and written when the object ends. Attributes that come after the head and content, in their
// order, are written as they are read (inlineAttribute); any other order writes them all from their spans at the end.
// An entry without a role is written as an item record (as it is read when its first member is not a role: a role
// that comes later takes it back),
// except a Responses reasoning item: like thinking blocks (content-parts.ts), clients may or may not send it
// back, and a turn must extend the previous one either way.
import { JsonScanner, JsonToken } from "../json/scanner";
import { FIRST_BLOCK } from "../json/string-runs";
import { isCacheControlKey, nextValueWritten, writeKey, writeMinifiedJson } from "./minified-json";
import { ContentPartWriter } from "./content-parts";
import { EmitCore, MessageRole, messageRole, plainMessageRole } from "./emit-core";
import { FieldSpans } from "./field-spans";
import { RS, SUB, US } from "./stream-format";

// Members of a message (chat, Anthropic) or Responses input item.
const MESSAGE_KEYS: StaticArray<string> = ["role", "content", "name", "tool_call_id", "tool_calls", "function_call", "type"];
const M_ROLE = 0;
const M_CONTENT = 1;
const M_FIRST_ATTR = 2; // attributes follow in MESSAGE_KEYS order, up to M_TYPE
const M_TYPE = 6;
// Where the content of the message being read is: not seen, recorded as a span (it came before the role), written.
const CONTENT_NONE = 0;
const CONTENT_RECORDED = 1;
const CONTENT_WRITTEN = 2;
// The bytes of the common message's keys as the scanner reads them (JsonScanner.nextKeyBytes): "role": in first
// place, ,"content": after it.
const ROLE_KEY: u64 = 0x3a22656c6f7222; // "role":
const ROLE_KEY_BYTES: usize = 7;
const CONTENT_KEY_LO: u64 = 0x6e65746e6f63222c; // ,"conten
const CONTENT_KEY_HI: u64 = 0x3a2274; // t":
const CONTENT_KEY_BYTES: usize = 11;
// Bits of the attributes in FieldSpans masks: M_FIRST_ATTR up to M_TYPE.
const ATTR_MASK: u32 = ((<u32>1 << M_TYPE) - 1) & ~((<u32>1 << M_FIRST_ATTR) - 1);

export class MessageEntryWriter {
  private readonly core: EmitCore;
  private readonly content: ContentPartWriter;
  private readonly messageSpans: FieldSpans = new FieldSpans(MESSAGE_KEYS);
  private readonly deferredScanner: JsonScanner; // content recorded before its role
  // SUB name US of each attribute, back to back, and where attribute i's starts (i from M_FIRST_ATTR; one more
  // entry for the end): each is written with one copy.
  private readonly attrHeads: StaticArray<u8>;
  private readonly attrHeadAt: StaticArray<i32>;
  // Attributes of the entry being read written as they were read (bit i: attribute i), where the first of them starts
  // in the writer, and the steps their write from spans at the end would have cost: those are still drawn, so the
  // budget runs out where it did when every attribute was read twice.
  private attrsWritten: u32 = 0;
  private attrsAt: i32 = 0;
  private attrSteps: i32 = 0;
  // The item record written as the entry is read: where it starts (-1: none), whether its writing goes on (the writer
  // not full yet), whether a member went out (the next takes a ','), the steps left when the entry's first member was
  // to be read, and the steps its write from the span (EmitCore.record) would have drawn, once known (-1 before).
  private itemAt: i32 = -1;
  private itemLive: bool = false;
  private itemMembers: bool = false;
  private itemLeft: i32 = 0;
  private itemSteps: i32 = -1;
  // The last entry() read the '{' of the entry after it (nextObjEndThenElementObject), which entries() reads next.
  private nextOpened: bool = false;
  // The first token of the value itemMember read, and where it starts.
  private valueToken: i32 = 0;
  private valueStart: usize = 0;

  constructor(core: EmitCore, content: ContentPartWriter, maxDepth: i32) {
    this.core = core;
    this.content = content;
    this.deferredScanner = new JsonScanner(maxDepth);
    let total = 0;
    for (let i = M_FIRST_ATTR; i < M_TYPE; i++) total += MESSAGE_KEYS[i].length + 2;
    const heads = new StaticArray<u8>(total);
    const at = new StaticArray<i32>(M_TYPE + 1);
    let p = 0;
    for (let i = M_FIRST_ATTR; i < M_TYPE; i++) {
      const key = MESSAGE_KEYS[i];
      at[i] = p;
      heads[p++] = SUB;
      for (let j = 0; j < key.length; j++) heads[p++] = <u8>key.charCodeAt(j); // ASCII
      heads[p++] = US;
    }
    at[M_TYPE] = p;
    this.attrHeads = heads;
    this.attrHeadAt = at;
  }

  /** Elements of the array whose ArrStart sc just returned, up to its ArrEnd. */
  entries(sc: JsonScanner): void {
    const core = this.core;
    let t = sc.next();
    if (t == JsonToken.ArrEnd || !core.ok(t)) return;
    while (true) {
      if (t == JsonToken.ObjStart) {
        if (!this.entry(sc)) return;
        // The entry read the next one's '{' with its own '}'.
        if (this.nextOpened) {
          this.nextOpened = false;
          continue;
        }
      } else {
        const start = sc.tokenStart;
        if (!core.ok(sc.skipValue())) return;
        core.conversationStarts(core.writer.len);
        core.record("item", start, sc.pos);
        if (core.stopped()) return;
      }
      // The common array: the next message follows at once.
      if (sc.nextIsElementObject()) {
        t = JsonToken.ObjStart;
        continue;
      }
      t = sc.next();
      if (t == JsonToken.ArrEnd) return;
      // Not stopped since the check above: only an Error or Budget token can stop emission now.
      if (t >= JsonToken.Error) {
        core.ok(t);
        return;
      }
    }
  }

  // The message or item whose ObjStart sc just returned; returns !core.stopped() after it.
  private entry(sc: JsonScanner): bool {
    const start = sc.tokenStart;
    const core = this.core;
    const m = this.messageSpans;
    const w = core.writer;
    let headDone = false;
    let content = CONTENT_NONE;
    let role = MessageRole.Other;
    let recordStart = 0;
    let firstMember = true;
    // The common message, {"role":"<string>","content":"<string>"}, read straight as the loop's first rounds read it;
    // at the first member that differs the loop goes on from there.
    let contentKey = false;
    const at = w.len;
    // A short plain role and the content key after it read in one call, the head written as head() writes it then
    // (which leaves emission going on: the room for it was there).
    const roleLen = !w.full && at + FIRST_BLOCK + 2 <= w.cap
      ? sc.nextFirstMemberAndKey(ROLE_KEY, ROLE_KEY_BYTES, CONTENT_KEY_LO, CONTENT_KEY_HI, CONTENT_KEY_BYTES, w.ptr + <usize>at + 1)
      : -1;
    if (roleLen >= 0) {
      firstMember = false;
      recordStart = at;
      const roleAt = w.ptr + <usize>at;
      store<u8>(roleAt, RS);
      store<u8>(roleAt + 1 + <usize>roleLen, US);
      w.len = at + roleLen + 2;
      // The role's bytes as copied: the same as the body's.
      role = plainMessageRole(roleAt + 1, roleAt + 1 + <usize>roleLen);
      if (role != MessageRole.System) core.conversationStarts(at);
      headDone = true;
      contentKey = true;
    } else if (sc.nextKeyBytes(ROLE_KEY, 0, ROLE_KEY_BYTES)) {
      firstMember = false;
      recordStart = w.len;
      role = this.head(sc);
      headDone = true;
      if (core.stopped()) return false;
      contentKey = sc.nextKeyBytes(CONTENT_KEY_LO, CONTENT_KEY_HI, CONTENT_KEY_BYTES);
    }
    if (contentKey) {
      const t = w.nextDecoded(sc);
      if (t != JsonToken.String) this.content.content(sc, t);
      content = CONTENT_WRITTEN;
      if (core.stopped()) return false;
      // Nothing recorded, no attribute: the end of the loop below comes down to this (nothing written since the
      // check above, so emission still goes on). A next message right after it is opened too (nextOpened), as
      // entries() would open it next.
      const ended = sc.nextObjEndThenElementObject();
      if (ended != 0) {
        core.messageEndedGoingOn(role, recordStart);
        this.nextOpened = ended == 2;
        return true;
      }
    }
    // What the loop reads besides: nothing recorded, no attribute or item written yet.
    m.clear();
    // Attributes may still be written as they are read: none came before the head or out of order.
    let attrsInline = true;
    this.attrsWritten = 0;
    this.attrSteps = 0;
    this.itemAt = -1;
    while (true) {
      let i = -1;
      // A content after the head has its key told by its bytes ("role": in first place was tried above).
      if (headDone && content == CONTENT_NONE && sc.nextKeyBytes(CONTENT_KEY_LO, CONTENT_KEY_HI, CONTENT_KEY_BYTES)) {
        i = M_CONTENT;
      } else if (sc.nextIsObjEnd()) {
        break;
      } else {
        const k = sc.next();
        if (k == JsonToken.ObjEnd) break;
        if (k != JsonToken.String) return core.ok(k);
        i = messageKey(sc, m);
        if (i != M_ROLE) {
          // The steps left after '{' were one more: this key took one.
          if (firstMember) this.startItem(core.budget.left + 1);
        } else if (this.itemAt >= 0) {
          w.truncate(this.itemAt, false);
          this.itemAt = -1;
        }
      }
      firstMember = false;
      if (i == M_ROLE && !headDone) {
        recordStart = w.len;
        role = this.head(sc);
        headDone = true;
        if (core.stopped()) return false;
        continue;
      }
      if (i == M_CONTENT && headDone && content == CONTENT_NONE) {
        // The content goes before the attributes: those written already are written again from their spans.
        if (this.attrsWritten != 0) {
          this.unwriteAttributes();
          attrsInline = false;
        }
        // A string content is written by nextDecoded: nothing more to do for it (the common case).
        const t = w.nextDecoded(sc);
        if (t != JsonToken.String) this.content.content(sc, t);
        content = CONTENT_WRITTEN;
        if (core.stopped()) return false;
        continue;
      }
      if (attrsInline && i >= M_FIRST_ATTR && i < M_TYPE) {
        // In order after the head and a content written (or none yet): written now, in the one read of its value.
        if (headDone && content != CONTENT_RECORDED && this.attrsWritten >> <u32>i == 0) {
          if (!this.inlineAttribute(sc, i)) return false;
          continue;
        }
        if (this.attrsWritten != 0) this.unwriteAttributes();
        attrsInline = false;
      }
      let v: i32;
      let valueStart: usize;
      if (this.itemAt >= 0) {
        if (!this.itemMember(sc)) return false;
        v = this.valueToken;
        valueStart = this.valueStart;
      } else {
        // Only an Error or Budget token stops the read here (a writer an attribute filled ends the entry's output only).
        v = sc.next();
        if (haltsOn(core, v)) return false;
        valueStart = sc.tokenStart;
        // skipValue() returns a scalar's token as it is: no call for those.
        if ((v == JsonToken.ObjStart || v == JsonToken.ArrStart) && haltsOn(core, sc.skipValue())) return false;
      }
      if (i == M_CONTENT) {
        if (content == CONTENT_WRITTEN) continue;
        content = CONTENT_RECORDED;
      }
      if (i != M_ROLE) m.set(i, v, valueStart, sc.pos);
    }
    if (!headDone) {
      const itemAt = this.itemAt;
      if (m.stringIs(M_TYPE, "reasoning")) {
        if (itemAt >= 0) w.truncate(itemAt, false);
      } else if (itemAt < 0) {
        core.conversationStarts(w.len);
        core.record("item", start, sc.pos);
      } else {
        core.conversationStarts(itemAt);
        if (this.itemLive) {
          w.byte(0x7d);
          this.itemSteps = 1 + this.itemLeft - core.budget.left;
        }
        drawSteps(core, this.itemSteps);
      }
      return !core.stopped();
    }
    if (content == CONTENT_RECORDED) {
      this.content.contentAt(this.deferredScanner, m.start(M_CONTENT), m.end(M_CONTENT), m.token(M_CONTENT));
    }
    if (!drawSteps(core, this.attrSteps)) return false;
    // Content only uses the part and leaf spans, so the message spans are intact.
    // A null attribute is an absent one: SDK dumps write "tool_calls": null where other clients write nothing.
    let attrs = m.valuedKeys & ATTR_MASK & ~this.attrsWritten;
    while (attrs != 0 && !core.stopped()) {
      const i = <i32>ctz(attrs); // in MESSAGE_KEYS order
      attrs &= attrs - 1;
      const from = unchecked(this.attrHeadAt[i]);
      w.ascii(changetype<usize>(this.attrHeads) + <usize>from, unchecked(this.attrHeadAt[i + 1]) - from);
      core.value(m.start(i), m.end(i), m.token(i));
    }
    core.messageEnded(role, recordStart);
    return !core.stopped();
  }

  // RS role US of the message whose "role" key sc is on, its value read; returns the role.
  // @ts-ignore: decorator
  @inline private head(sc: JsonScanner): MessageRole {
    const core = this.core;
    const w = core.writer;
    const recordStart = w.len;
    let role = MessageRole.Other;
    // A short plain role (every common one) copied as a block with room for RS and US around it.
    if (!w.full && recordStart + FIRST_BLOCK + 2 <= w.cap) {
      const at = w.ptr + <usize>recordStart;
      const k = sc.nextShortPlainValue(at + 1);
      if (k >= 0) {
        store<u8>(at, RS);
        store<u8>(at + 1 + <usize>k, US);
        w.len = recordStart + k + 2;
        role = plainMessageRole(sc.start, sc.end);
        if (role != MessageRole.System) core.conversationStarts(recordStart);
        return role;
      }
    }
    w.byte(RS);
    const t = w.nextDecoded(sc);
    // Read from the body, not from what the writer kept: a record whose role the cap cuts (or leaves out) still
    // is a system one or not, and the tools go after it or before it (EmitCore.assemble).
    if (t == JsonToken.String) role = messageRole(sc.start, sc.end, sc.hasEscapes);
    core.inlineValue(sc, t);
    if (role != MessageRole.System) core.conversationStarts(recordStart);
    w.byte(US);
    return role;
  }

  // Reads the value of attribute i (sc is on its key) and writes SUB name US value, as the loop at the end of entry()
  // would from its span; records the span too. False when emission stopped on an Error or Budget token.
  private inlineAttribute(sc: JsonScanner, i: i32): bool {
    const core = this.core;
    const w = core.writer;
    const budget = core.budget;
    const outer = sc.depth;
    const before = budget.left;
    const v = sc.next();
    if (haltsOn(core, v)) return false;
    const valueStart = sc.tokenStart;
    // The loop at the end writes no null and nothing once the writer is full (nothing else stops it here).
    if (v != JsonToken.Null && !w.full) {
      if (this.attrsWritten == 0) this.attrsAt = w.len;
      this.attrsWritten |= <u32>1 << <u32>i;
      const from = unchecked(this.attrHeadAt[i]);
      w.ascii(changetype<usize>(this.attrHeads) + <usize>from, unchecked(this.attrHeadAt[i + 1]) - from);
      if (v == JsonToken.String) {
        w.text(sc.start, sc.end); // costs no step from a span either
      } else if (!w.full) {
        // From a span: nothing read once the head filled the writer (EmitCore.json).
        if (haltsOn(core, writeMinifiedJson(sc, w))) return false;
        this.attrSteps += before - budget.left;
      }
    }
    // The rest of the value (all of it when not written; what a full writer left).
    while (sc.depth > outer) {
      if (haltsOn(core, sc.next())) return false;
    }
    this.messageSpans.set(i, v, valueStart, sc.pos);
    return true;
  }

  // Starts the item record of the entry whose first member is not a role, as EmitCore.record writes it: FS item US and
  // the object minified (writeMinifiedJson), its members as itemMember reads them. `left`: the steps left after '{'.
  private startItem(left: i32): void {
    const core = this.core;
    const w = core.writer;
    if (w.full) return; // nothing to write: the end of entry() writes nothing either
    this.itemAt = w.len;
    this.itemLeft = left;
    this.itemMembers = false;
    core.recordHead("item");
    // From the span nothing is read once the head filled the writer (EmitCore.json), else '{' and on.
    this.itemSteps = 0;
    this.itemLive = false;
    if (w.full) return;
    w.byte(0x7b);
    this.itemSteps = 1;
    this.itemLive = !w.full;
  }

  // The member of the item being written whose key sc is on: its key and value written as writeMinifiedJson writes
  // them (a cache_control member left out), stopping where the writer fills; the value read to its end either way
  // (valueToken, valueStart). False when emission stopped on an Error or Budget token.
  private itemMember(sc: JsonScanner): bool {
    const core = this.core;
    const w = core.writer;
    const outer = sc.depth;
    let live = this.itemLive && !isCacheControlKey(sc);
    if (live) {
      if (this.itemMembers) w.byte(0x2c);
      this.itemMembers = true;
      writeKey(sc, w);
      if (w.full) live = this.stopItem();
    }
    const v = live ? nextValueWritten(sc, w) : sc.next();
    if (haltsOn(core, v)) return false;
    this.valueToken = v;
    this.valueStart = sc.tokenStart;
    if (live) {
      // A string went in as it was read but for its closing '"'.
      if (v == JsonToken.String) w.byte(0x22);
      else if (haltsOn(core, writeMinifiedJson(sc, w))) return false;
      if (w.full) this.stopItem();
    }
    while (sc.depth > outer) {
      if (haltsOn(core, sc.next())) return false;
    }
    return true;
  }

  // The writer filled: the item's write from the span would have read up to the token read last, and stopped.
  private stopItem(): bool {
    this.itemLive = false;
    this.itemSteps = 1 + this.itemLeft - this.core.budget.left;
    return false;
  }

  // Takes back the attributes written as they were read: the end of entry() writes them from their spans.
  private unwriteAttributes(): void {
    this.core.writer.truncate(this.attrsAt, false);
    this.attrsWritten = 0;
    this.attrSteps = 0;
  }
}

// Draws the steps of a write from spans done while reading instead (an attribute, an item), so that the budget runs
// out where it did when those values were read twice; false (emission halted) when it does.
function drawSteps(core: EmitCore, steps: i32): bool {
  if (steps <= 0) return true;
  const budget = core.budget;
  const left = budget.left - steps;
  budget.left = max(left, 0);
  if (left >= 0) return true;
  core.ok(JsonToken.Budget);
  return false;
}

// core.ok(t) negated, for a token read while nothing was written since core.stopped() or core.ok() last found
// emission going on: then only an Error or Budget token can stop it.
// @ts-ignore: decorator
@inline function haltsOn(core: EmitCore, t: i32): bool {
  if (t < JsonToken.Error) return false;
  core.ok(t);
  return true;
}

// The index in MESSAGE_KEYS of the key sc is on: "role" and "content", which nearly every message has, by their bytes
// (little-endian loads), the others by the lookup.
// @ts-ignore: decorator
@inline function messageKey(sc: JsonScanner, m: FieldSpans): i32 {
  const p = sc.start;
  const n = sc.end - p;
  if (!sc.hasEscapes) {
    if (n == 4 && load<u32>(p) == 0x656c6f72) return M_ROLE; // "role"
    if (n == 7 && load<u32>(p) == 0x746e6f63 && load<u32>(p, 3) == 0x746e6574) return M_CONTENT; // "content"
  }
  return m.indexOfKey(sc);
}
