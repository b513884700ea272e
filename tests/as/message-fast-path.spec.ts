// The common message {"role":"<string>","content":"<string>"} is read straight (message-entries.ts entry), the general
// loop taking over at the first member that differs. A space after the message's '{' sends all of it through the loop,
// so each message that differs from the common one at some place (a byte changed, a byte put in, the body cut, an
// attribute added) must extract as the same message spaced does: same status, stream, fields and steps, at every
// budget and at caps that cut it anywhere.
import { RequestExtractor } from "../../assembly/request/extract";

// Pairs of extractors, one for the message as read, one for it spaced: a big cap and caps that cut it anywhere.
const CAPS: StaticArray<i32> = [1 << 12, 0, 3, 7, 11, 16, 20, 24, 29, 34, 40, 47, 55, 64];
const READ: RequestExtractor[] = [];
const SPACED: RequestExtractor[] = [];
for (let i = 0; i < CAPS.length; i++) {
  READ.push(new RequestExtractor(CAPS[i], 64));
  SPACED.push(new RequestExtractor(CAPS[i], 64));
}

// The fast path's shape, a short role and content and longer ones with an escape.
const BASES: StaticArray<string> = [
  '{"role":"user","content":"hello"}',
  '{"role":"assistant","content":"a reply longer than two blocks of sixteen bytes\\n"}',
];
// Bytes put at a place or in place of the byte there: whitespace, other JSON punctuation, an escape, a non-ASCII letter.
const PUT: StaticArray<string> = [" ", "x", '"', "}", ",", ":", "\\", "é", "[", "1"];
// Members that may follow the role or the content.
const MEMBERS: StaticArray<string> = ['"name":"n"', '"tool_calls":[{"id":"c"}]', '"content":"again"', '"role":"tool"', '"x":null'];

let heldRead: ArrayBuffer = new ArrayBuffer(0);
let heldSpaced: ArrayBuffer = new ArrayBuffer(0);

function bodyWith(message: string): string {
  return '{"model":"m","messages":[{"role":"system","content":"s"},' + message + ',{"role":"assistant","content":"after"}]}';
}

// The outputs of a and b, equal or not (the expectation is built only on a difference).
function differ(sa: i32, a: RequestExtractor, sb: i32, b: RequestExtractor): bool {
  if (sa != sb || a.streamLen != b.streamLen || a.prefixUsable != b.prefixUsable || a.streamTruncated != b.streamTruncated) return true;
  if (a.firstUserStart != b.firstUserStart || a.firstUserEnd != b.firstUserEnd) return true;
  if (a.lastAssistantStart != b.lastAssistantStart || a.lastAssistantEnd != b.lastAssistantEnd) return true;
  if (a.prefixSkip != b.prefixSkip || a.kind != b.kind || a.stepsUsed != b.stepsUsed || a.modelLen != b.modelLen) return true;
  return memory.compare(a.streamPtr, b.streamPtr, <usize>a.streamLen) != 0;
}

function outputs(status: i32, e: RequestExtractor): string {
  let out = status.toString() + "|" + e.streamLen.toString() + "|" + (e.prefixUsable ? "u" : "-") + (e.streamTruncated ? "t" : "-");
  out += "|" + e.firstUserStart.toString() + "," + e.firstUserEnd.toString() + "," + e.lastAssistantStart.toString() + "," + e.lastAssistantEnd.toString();
  out += "|" + e.prefixSkip.toString() + "|" + e.kind.toString() + "|" + e.stepsUsed.toString() + "|" + e.modelLen.toString() + "|";
  out += String.UTF8.decodeUnsafe(e.streamPtr, <usize>e.streamLen);
  return out;
}

// body and spaced extracted at a budget by each pair of extractors, their outputs compared; the steps of the big cap's.
function compare(body: string, spaced: string, steps: i32, label: string): i32 {
  heldRead = String.UTF8.encode(body);
  heldSpaced = String.UTF8.encode(spaced);
  for (let c = 0; c < CAPS.length; c++) {
    const a = READ[c];
    const b = SPACED[c];
    const sa = a.extract(changetype<usize>(heldRead), <usize>heldRead.byteLength, steps);
    const sb = b.extract(changetype<usize>(heldSpaced), <usize>heldSpaced.byteLength, steps);
    if (differ(sa, a, sb, b)) expect(outputs(sa, a)).toBe(outputs(sb, b), label + " steps " + steps.toString() + " cap " + CAPS[c].toString());
  }
  return READ[0].stepsUsed;
}

let compared = 0;

// The message as read and the same message spaced after its '{', at every budget up to the whole read's.
function same(message: string): void {
  const body = bodyWith(message);
  const spaced = bodyWith("{ " + message.substring(1));
  const steps = compare(body, spaced, 1000000, message);
  for (let s = 1; s <= steps; s++) compare(body, spaced, s, message);
  compared++;
}

// Roles copied as one block (plain, under 16 bytes) and roles that are not (16 bytes, an escape, a non-ASCII letter).
const ROLES: StaticArray<string> = ["user", "assistant", "system", "developer", "tool", "", "fifteen_bytes__", "sixteen_bytes___", "us\\u0065r", "usér"];
// Messages with R for the role: read straight, with the role after the content, after an attribute, alone.
const ROLE_MESSAGES: StaticArray<string> = ['{"role":"R","content":"hello"}', '{"content":"first","role":"R"}', '{"name":"n","role":"R","content":"x"}', '{"role":"R"}'];

// The message with its role read and with the role spaced from its key (which nextDecoded reads), between a user and
// an assistant message and before tools, which go after the leading system records: same outputs at every budget.
function sameSpacedRole(message: string): void {
  const tools = '],"tools":[{"type":"function","function":{"name":"f"}}]}';
  const body = '{"model":"m","messages":[' + message + ',{"role":"assistant","content":"after"}' + tools;
  const spaced = body.replace('"role":', '"role": ');
  const steps = compare(body, spaced, 1000000, body);
  for (let s = 1; s <= steps; s++) compare(body, spaced, s, body);
}

describe("the common message's straight read", () => {
  it("reads a role copied as a block as a role spaced from its key is read", () => {
    for (let r = 0; r < ROLES.length; r++) {
      for (let m = 0; m < ROLE_MESSAGES.length; m++) sameSpacedRole(ROLE_MESSAGES[m].replace("R", ROLES[r]));
    }
  });

  it("reads the common message as the general loop does", () => {
    for (let b = 0; b < BASES.length; b++) same(BASES[b]);
  });

  it("reads a message with a byte changed or put in at any place after its '{' as the general loop does", () => {
    compared = 0;
    for (let b = 0; b < BASES.length; b++) {
      const m = BASES[b];
      for (let i = 1; i < m.length; i++) {
        for (let k = 0; k < PUT.length; k++) {
          same(m.substring(0, i) + PUT[k] + m.substring(i + 1));
          same(m.substring(0, i) + PUT[k] + m.substring(i));
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("reads a message cut at any place after its '{' (the body ending there) as the general loop does", () => {
    for (let b = 0; b < BASES.length; b++) {
      const m = BASES[b];
      for (let i = 1; i < m.length; i++) {
        const cut = m.substring(0, i);
        const body = '{"model":"m","messages":[' + cut;
        const spaced = '{"model":"m","messages":[{ ' + cut.substring(1);
        const steps = compare(body, spaced, 1000000, cut);
        for (let st = 1; st <= steps; st++) compare(body, spaced, st, cut);
      }
    }
  });

  it("reads a message with members after its role or its content as the general loop does", () => {
    for (let b = 0; b < BASES.length; b++) {
      const m = BASES[b];
      const comma = m.indexOf(',"content"');
      for (let k = 0; k < MEMBERS.length; k++) {
        same(m.substring(0, comma) + "," + MEMBERS[k] + m.substring(comma));
        same(m.substring(0, m.length - 1) + "," + MEMBERS[k] + "}");
        same('{"role":"user",' + MEMBERS[k] + "}");
      }
    }
  });
});
