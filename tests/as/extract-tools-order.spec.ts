// Where the tools go in the stream: after the leading system records (the top-level system or instructions, and any
// system or developer messages), before the conversation, whatever the order of the body's keys. The chat templates
// of vLLM's and SGLang's model families render the system prompt before the tools, so requests that share tools but
// not a system prompt must not share a prefix, and those that share a system prompt must.
import { ExtractStatus, RequestExtractor } from "../../assembly/request/extract";

const RS = String.fromCharCode(0x1e);
const US = String.fromCharCode(0x1f);
const FS = String.fromCharCode(0x1c);

const ex = new RequestExtractor(1 << 16, 64);
let held: ArrayBuffer = new ArrayBuffer(0);

function streamWith(e: RequestExtractor, body: string): string {
  held = String.UTF8.encode(body);
  const status = e.extract(changetype<usize>(held), <usize>held.byteLength, 1000000);
  if (status != ExtractStatus.Ok || !e.prefixUsable) throw new Error("not usable: " + body);
  return String.UTF8.decodeUnsafe(e.streamPtr, <usize>e.streamLen);
}

function streamFor(body: string): string {
  return streamWith(ex, body);
}

function msg(role: string, text: string): string {
  return RS + role + US + text;
}

const TOOLS = '[{"type":"function","function":{"name":"read","parameters":{}}}]';
const TOOLS_RECORD = FS + "tools" + US + TOOLS;

function sharedPrefix(a: string, b: string): i32 {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) == b.charCodeAt(n)) n++;
  return n;
}

describe("tools in the stream", () => {
  it("follow the leading system messages, whichever key comes first", () => {
    const messages = '[{"role":"system","content":"Be brief."},{"role":"developer","content":"Use tools."},{"role":"user","content":"Hi"}]';
    const expected = msg("system", "Be brief.") + msg("developer", "Use tools.") + TOOLS_RECORD + msg("user", "Hi");
    expect(streamFor('{"model":"m","messages":' + messages + ',"tools":' + TOOLS + "}")).toBe(expected);
    expect(streamFor('{"model":"m","tools":' + TOOLS + ',"messages":' + messages + "}")).toBe(expected);
  });

  it("open the stream when no system message leads, and close it when only system messages come", () => {
    expect(streamFor('{"model":"m","messages":[{"role":"user","content":"Hi"},{"role":"system","content":"late"}],"tools":' + TOOLS + "}"))
      .toBe(TOOLS_RECORD + msg("user", "Hi") + msg("system", "late"));
    expect(streamFor('{"model":"m","tools":' + TOOLS + ',"messages":[{"role":"system","content":"only"}]}'))
      .toBe(msg("system", "only") + TOOLS_RECORD);
  });

  it("follow the top-level system (Anthropic) and the instructions (Responses)", () => {
    expect(streamFor('{"model":"m","tools":' + TOOLS + ',"messages":[{"role":"user","content":"Hi"}],"system":"Be brief."}'))
      .toBe(msg("system", "Be brief.") + TOOLS_RECORD + msg("user", "Hi"));
    expect(streamFor('{"model":"m","input":[{"role":"user","content":"Hi"}],"tools":' + TOOLS + ',"instructions":"Be brief."}'))
      .toBe(msg("system", "Be brief.") + TOOLS_RECORD + msg("user", "Hi"));
    expect(streamFor('{"model":"m","tools":' + TOOLS + ',"input":"Hi","instructions":"Be brief."}'))
      .toBe(msg("system", "Be brief.") + TOOLS_RECORD + msg("user", "Hi"));
  });

  it("follow the cache salt, which opens the stream", () => {
    expect(streamFor('{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"Hi"}],"tools":' + TOOLS + ',"cache_salt":"k"}'))
      .toBe(FS + "cache_salt" + US + "k" + msg("system", "S") + TOOLS_RECORD + msg("user", "Hi"));
  });

  it("let requests share their system prompt, not their tools", () => {
    const body = (system: string, tools: string): string =>
      '{"model":"m","tools":' + tools + ',"messages":[{"role":"system","content":"' + system + '"},{"role":"user","content":"Hi"}]}';
    const other = '[{"type":"function","function":{"name":"write","parameters":{}}}]';
    const a = streamFor(body("You are a careful coding agent.", TOOLS));
    const sameSystem = streamFor(body("You are a careful coding agent.", other));
    const sameTools = streamFor(body("You are a hasty coding agent.", TOOLS));
    expect(sharedPrefix(a, sameSystem)).toBeGreaterThanOrEqual(msg("system", "You are a careful coding agent.").length);
    expect(sharedPrefix(a, sameTools)).toBeLessThan(msg("system", "You are a ").length + 1);
  });

  it("keep a turn a prefix of the next", () => {
    const turn1 = '{"model":"m","tools":' + TOOLS + ',"messages":[{"role":"system","content":"S"},{"role":"user","content":"Hi"}]}';
    const turn2 = '{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},' +
      '{"role":"user","content":"More"}],"tools":' + TOOLS + "}";
    const a = streamFor(turn1);
    const b = streamFor(turn2);
    expect(b.startsWith(a)).toBe(true);
  });

  it("mark the last assistant answer where it lands, after the tools", () => {
    const s = streamFor('{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"Q"},{"role":"assistant","content":"A"},' +
      '{"role":"user","content":"Q2"}],"tools":' + TOOLS + "}");
    expect(s.substring(ex.lastAssistantStart, ex.lastAssistantEnd)).toBe(msg("assistant", "A"));
    expect(s.substring(ex.firstUserStart, ex.firstUserEnd)).toBe(msg("user", "Q"));
  });
});

const CUT_BODY = '{"model":"m","messages":[{"role":"system","content":"' + "s".repeat(40) + '"},{"role":"user","content":"' +
  "u".repeat(40) + '"}],"tools":' + TOOLS + "}";

describe("tools in a stream cut at its cap", () => {
  // Each stream is the longest prefix of the uncut one that fits.
  it("is the uncut stream's prefix at every cap", () => {
    const body = CUT_BODY;
    const whole = streamWith(new RequestExtractor(1 << 16, 64), body);
    for (let cap = 8; cap <= whole.length + 4; cap += 3) {
      const cut = new RequestExtractor(cap, 64);
      const s = streamWith(cut, body);
      const expected = whole.substring(0, min(cap, whole.length));
      expect(s).toBe(expected, "cap " + cap.toString());
      expect(cut.streamTruncated).toBe(cap < whole.length, "cap " + cap.toString());
    }
  });
});

describe("tools in a stream cut inside a system message's role", () => {
  // The role is read from the body, not from the bytes the cap left: a system message cut in its role still leads
  // the tools, so the cut stream is the uncut one's prefix (the tools used to take that record's place).
  it("is the uncut stream's prefix at every cap", () => {
    const body = '{"model":"m","tools":' + TOOLS + ',"messages":[{"role":"system","content":"S"},{"role":"developer","content":"D"},' +
      '{"role":"user","content":"Hi"}]}';
    const whole = streamWith(new RequestExtractor(1 << 16, 64), body);
    for (let cap = 1; cap <= whole.length + 1; cap++) {
      const s = streamWith(new RequestExtractor(cap, 64), body);
      expect(s).toBe(whole.substring(0, min(cap, whole.length)), "cap " + cap.toString());
    }
  });
});

describe("tools in a body with two conversation sections", () => {
  // No API takes both, but member order must not matter: the tools follow the leading system records of the first
  // section in canonical order (messages, input, prompt), at its end at the latest, whichever was read first.
  it("land in the same place whichever section comes first in the body", () => {
    const m = '"messages":[{"role":"system","content":"S"},{"role":"user","content":"Hi"}]';
    const sysOnly = '"messages":[{"role":"system","content":"S"}]';
    const i = '"input":[{"role":"developer","content":"D"},{"role":"user","content":"I"}]';
    const p = '"prompt":"P"';
    const pairs: string[][] = [[m, i], [m, p], [i, p], [sysOnly, i], [sysOnly, p]];
    for (let n = 0; n < pairs.length; n++) {
      const a = pairs[n][0];
      const b = pairs[n][1];
      const first = streamFor('{"model":"m","tools":' + TOOLS + "," + a + "," + b + "}");
      expect(streamFor('{"model":"m",' + b + ',"tools":' + TOOLS + "," + a + "}")).toBe(first, a + " " + b);
      expect(streamFor('{"model":"m",' + b + "," + a + ',"tools":' + TOOLS + "}")).toBe(first, a + " " + b);
    }
    expect(streamFor('{"model":"m","input":[{"role":"user","content":"I"}],"tools":' + TOOLS + "," + m + "}"))
      .toBe(msg("system", "S") + TOOLS_RECORD + msg("user", "Hi") + msg("user", "I"));
    expect(streamFor('{"model":"m","prompt":"P","tools":' + TOOLS + "," + sysOnly + "}"))
      .toBe(msg("system", "S") + TOOLS_RECORD + FS + "prompt" + US + "P");
  });
});
