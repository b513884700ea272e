import { ExtractStatus, PrefixSkip, RequestExtractor, RequestKind } from "../../assembly/request/extract";
import { EmitCore } from "../../assembly/request/emit-core";
import { JsonScanner, StepBudget } from "../../assembly/json/scanner";
import { StreamWriter } from "../../assembly/request/stream-writer";

const RS = String.fromCharCode(0x1e);
const US = String.fromCharCode(0x1f);
const GS = String.fromCharCode(0x1d);
const FS = String.fromCharCode(0x1c);
const SUB = String.fromCharCode(0x1a);
const ESC = String.fromCharCode(0x1b);

const ex = new RequestExtractor(1 << 16, 64);
// Keeps the encoded body alive while the extractor reads it.
let held: ArrayBuffer = new ArrayBuffer(0);

function run(body: string, steps: i32 = 1000000, e: RequestExtractor = ex, hint: i32 = RequestKind.Unknown): i32 {
  held = String.UTF8.encode(body);
  return e.extract(changetype<usize>(held), <usize>held.byteLength, steps, hint);
}

function streamOf(e: RequestExtractor = ex): string {
  return String.UTF8.decodeUnsafe(e.streamPtr, <usize>e.streamLen);
}

function modelOf(e: RequestExtractor = ex): string {
  return String.UTF8.decodeUnsafe(e.modelPtr, <usize>e.modelLen);
}

/** Runs a body that must extract cleanly and returns its stream. */
function streamFor(body: string): string {
  const status = run(body);
  if (status != ExtractStatus.Ok) throw new Error("status " + status.toString() + " for " + body);
  if (!ex.prefixUsable) throw new Error("prefix not usable for " + body);
  return streamOf();
}

function msg(role: string, text: string): string {
  return RS + role + US + text;
}

describe("chat completions", () => {
  it("writes roles and string contents in order", () => {
    const s = streamFor('{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]}');
    expect(s).toBe(msg("system", "Be brief.") + msg("user", "Hi"));
    expect(modelOf()).toBe("m");
    expect(ex.kind).toBe(RequestKind.Chat);
    expect(ex.streamTruncated).toBe(false);
    expect(ex.prefixSkip).toBe(PrefixSkip.None);
  });

  it("decodes escapes in content so that equivalent spellings agree", () => {
    const a = streamFor('{"model":"m","messages":[{"role":"user","content":"caf\\u00e9 \\"q\\" \\/ \\ud83d\\ude00\\n"}]}');
    const b = streamFor('{"model":"m","messages":[{"role":"user","content":"café \\"q\\" / 😀\\n"}]}');
    expect(a).toBe(msg("user", "café \"q\" / 😀\n"));
    expect(b).toBe(a);
  });

  it("reads role and content keys by their decoded name, and no other key as them", () => {
    const plain = streamFor('{"model":"m","messages":[{"role":"user","content":"Hi"}]}');
    expect(streamFor('{"model":"m","messages":[{"r\\u006fle":"user","conten\\u0074":"Hi"}]}')).toBe(plain);
    // Same length and first bytes as role / content (or their last bytes), but other keys: ignored members.
    const others = ['"rolE"', '"Role"', '"contenT"', '"Content"', '"cont_nt"', '"xontent"', '"roles"', '"conten"'];
    for (let i = 0; i < others.length; i++) {
      const s = streamFor('{"model":"m","messages":[{"role":"user",' + others[i] + ':"X","content":"Hi"}]}');
      expect(s).toBe(plain, others[i]);
    }
  });

  it("escapes separator bytes that come from \\u escapes", () => {
    const s = streamFor('{"model":"m","messages":[{"role":"user","content":"a\\u001eb\\u001bc\\u001ad"}]}');
    expect(s).toBe(msg("user", "a" + ESC + "^b" + ESC + "[c" + ESC + "Zd"));
  });

  it("writes content parts joined by GS, with image, audio and file fields", () => {
    const body =
      '{"model":"m","messages":[{"role":"user","content":[' +
      '{"type":"text","text":"look"},' +
      '{"type":"image_url","image_url":{"url":"https://x/i.png","detail":"low"}},' +
      '{"type":"image_url","image_url":"https://x/j.png"},' +
      '{"type":"input_audio","input_audio":{"data":"QUJD","format":"wav"}},' +
      '{"type":"file","file":{"file_id":"f1"}},' +
      '{"type":"file","file":{"filename":"a.pdf","file_data":"ZZZ"}},' +
      '{"type":"text","text":"end"}]}]}';
    const s = streamFor(body);
    expect(s).toBe(
      msg(
        "user",
        "look" + GS + "image_url" + US + "https://x/i.png" + GS + "image_url" + US + "https://x/j.png" + GS +
          "input_audio" + US + "QUJD" + GS + "file" + US + "f1" + US + US + GS +
          "file" + US + US + "ZZZ" + US + "a.pdf" + GS + "end",
      ),
    );
  });

  it("puts tools first as minified JSON with its strings escaped canonically", () => {
    const tools =
      '[ { "type": "function", "function": { "name": "f", "description": "say \\"hi\\" \\u00e9",\n' +
      '   "parameters": { "type": "object", "properties": { "n": { "type": "number", "minimum": -1.5e3 } } } } } ]';
    const minified =
      '[{"type":"function","function":{"name":"f","description":"say \\"hi\\" é",' +
      '"parameters":{"type":"object","properties":{"n":{"type":"number","minimum":-1.5e3}}}}}]';
    const s = streamFor('{"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":' + tools + "}");
    expect(s).toBe(FS + "tools" + US + minified + msg("user", "Hi"));
    const legacy = streamFor('{"functions":[{"name":"g","parameters":{}}],"model":"m","messages":[{"role":"user","content":"Hi"}]}');
    expect(legacy).toBe(FS + "functions" + US + '[{"name":"g","parameters":{}}]' + msg("user", "Hi"));
  });

  it("writes name, tool_call_id and tool_calls as attributes", () => {
    const body =
      '{"model":"m","messages":[' +
      '{"role":"user","name":"bob","content":"x"},' +
      '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]},' +
      '{"tool_call_id":"c1","role":"tool","content":"42"}]}';
    const s = streamFor(body);
    expect(s).toBe(
      msg("user", "x") + SUB + "name" + US + "bob" +
        msg("assistant", "") + SUB + "tool_calls" + US + '[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]' +
        msg("tool", "42") + SUB + "tool_call_id" + US + "c1",
    );
  });

  it("writes attributes alike and draws the same steps whatever the member order, at every cap", () => {
    // In order after role and content the attributes are written as they are read; any other order writes them
    // from their spans at the end, reading each value twice. Both give one stream, and the steps drawn are the same.
    const role = '"role":"assistant"';
    const content = '"content":"ok"';
    const name = '"name":"n"';
    const id = '"tool_call_id":"c1"';
    const calls = '"tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{\\"a\\":1}"},"cache_control":{"type":"x"}}]';
    const fn = '"function_call":{"name":"g","n":[1,2,true]}';
    const orders: string[][] = [
      [role, content, name, id, calls, fn],
      [role, name, id, calls, fn, content],
      [role, content, fn, calls, id, name],
      [calls, role, content, name, id, fn],
      [content, role, name, id, calls, fn],
      // Members repeated (the last value counts) or null: the same stream, more steps.
      [role, content, name, calls, id, name, fn],
      [role, content, name, '"tool_calls":null', id, fn, calls],
      [role, content, name, id, calls, fn, '"tool_calls":null', calls],
    ];
    const permutations = 5;
    const bodies: string[] = [];
    for (let i = 0; i < orders.length; i++) {
      bodies.push('{"model":"m","messages":[{"role":"user","content":"q"},{' + orders[i].join(",") + '},{"role":"user","content":"r"}]}');
    }
    const expected = streamFor(bodies[0]);
    const steps = ex.stepsUsed;
    expect(expected).toBe(
      msg("user", "q") + msg("assistant", "ok") + SUB + "name" + US + "n" + SUB + "tool_call_id" + US + "c1" +
        SUB + "tool_calls" + US + '[{"id":"c1","function":{"name":"f","arguments":"{\\"a\\":1}"}}]' +
        SUB + "function_call" + US + '{"name":"g","n":[1,2,true]}' + msg("user", "r"),
    );
    for (let i = 1; i < bodies.length; i++) {
      expect(streamFor(bodies[i])).toBe(expected, orders[i].join(","));
      if (i < permutations) expect(ex.stepsUsed).toBe(steps, orders[i].join(","));
    }
    for (let i = 0; i < permutations; i++) {
      expect(run(bodies[i], steps - 1)).toBe(ExtractStatus.Ok);
      expect(ex.prefixSkip).toBe(PrefixSkip.Budget, orders[i].join(","));
      expect(ex.stepsUsed).toBe(steps - 1);
    }
    // A cap anywhere in the attributes: the stream cut there and the steps alike for every order.
    for (let cap = 1; cap <= expected.length + 2; cap++) {
      const small = new RequestExtractor(cap, 64);
      run(bodies[0], 1000000, small);
      const cut = streamOf(small);
      const cutSteps = small.stepsUsed;
      for (let i = 1; i < bodies.length; i++) {
        run(bodies[i], 1000000, small);
        expect(streamOf(small)).toBe(cut, orders[i].join(","));
        expect(small.streamTruncated).toBe(cut.length < expected.length);
        if (i < permutations) expect(small.stepsUsed).toBe(cutSteps, orders[i].join(","));
      }
    }
  });

  it("writes array elements without a role as items", () => {
    const s = streamFor('{"model":"m","messages":[{"content":"x"},7,{"role":"user","content":"y"}]}');
    expect(s).toBe(FS + "item" + US + '{"content":"x"}' + FS + "item" + US + "7" + msg("user", "y"));
  });
});

describe("completions", () => {
  it("writes a string prompt and an array of strings", () => {
    expect(streamFor('{"model":"m","prompt":"Once upon"}')).toBe(FS + "prompt" + US + "Once upon");
    expect(ex.kind).toBe(RequestKind.Completions);
    expect(streamFor('{"prompt":["a","b\\u00e9","c"],"model":"m"}')).toBe(FS + "prompt" + US + "a" + GS + "bé" + GS + "c");
    expect(streamFor('{"model":"m","prompt":[]}')).toBe(FS + "prompt" + US);
  });

  it("marks token-id prompts unusable", () => {
    const bodies: string[] = [
      '{"model":"m","prompt":[1,2,3]}',
      '{"model":"m","prompt":[[1,2],[3]]}',
      '{"prompt":[1,2,3],"model":"m"}',
      '{"model":"m","prompt":["a",5]}',
      '{"model":"m","messages":[{"role":"user","content":"x"}],"prompt":[9]}',
    ];
    for (let i = 0; i < bodies.length; i++) {
      expect(run(bodies[i])).toBe(ExtractStatus.Ok);
      expect(ex.prefixUsable).toBe(false);
      expect(ex.prefixSkip).toBe(PrefixSkip.TokenArray);
      expect(modelOf()).toBe("m");
    }
  });
});

describe("responses", () => {
  it("writes instructions as a system record and a string input as a user record", () => {
    const s = streamFor('{"model":"m","instructions":"Sys","input":"Hello"}');
    expect(s).toBe(msg("system", "Sys") + msg("user", "Hello"));
    expect(ex.kind).toBe(RequestKind.Responses);
    expect(streamFor('{"input":"Hello","model":"m","instructions":"Sys"}')).toBe(s);
  });

  it("writes input items, their parts and non-message items", () => {
    const body =
      '{"model":"m","input":[' +
      '{"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"data:x"},' +
      '{"type":"input_file","file_id":"f9"}]},' +
      '{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]},' +
      '{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},' +
      '{"type":"function_call_output","call_id":"c","output":"1"}]}';
    const s = streamFor(body);
    expect(s).toBe(
      msg("user", "hi" + GS + "input_image" + US + "data:x" + US + GS + "input_file" + US + "f9" + US + US) +
        msg("assistant", "ok") +
        FS + "item" + US + '{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}' +
        FS + "item" + US + '{"type":"function_call_output","call_id":"c","output":"1"}',
    );
  });
});

// The body EmitCore.record reads in the reference below.
let refHeld: ArrayBuffer = new ArrayBuffer(0);

// Steps a scan of the whole document takes (one per token and one for its end).
function scanSteps(doc: string): i32 {
  const sc = new JsonScanner(64);
  held = String.UTF8.encode(doc);
  sc.reset(changetype<usize>(held), <usize>held.byteLength, 1000000);
  while (sc.next() < 10) {}
  return 1000000 - sc.stepsLeft;
}

describe("responses items written as they are read", () => {
  // An item is written as it is read; the stream and the steps are those of EmitCore.record writing it from its span
  // after the read (as the extractor did), at every cap: the budget runs out where it did.
  it("writes and draws what a write from the span writes and draws, at every cap", () => {
    const items: string[] = [
      '{"type":"function_call","call_id":"c1","name":"f","arguments":"{\\"a\\":1}","cache_control":{"type":"x"},"status":null}',
      '{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"\\u00e9 \\/ x"}]}',
      '{"cache_control":{"type":"x"},"type":"x","id":1.5e3,"cache_control":1}',
      '{ "content" : "x" , "type":"message", "n":[1,{"cache_control":2,"k":true}] }',
      "{}",
    ];
    for (let i = 0; i < items.length; i++) {
      const body = '{"model":"m","input":[' + items[i] + "]}";
      const scan = scanSteps(body);
      // Its own copy of the body: run() replaces held.
      refHeld = String.UTF8.encode(body);
      const item = changetype<usize>(refHeld) + <usize>String.UTF8.byteLength('{"model":"m","input":[');
      const itemEnd = changetype<usize>(refHeld) + <usize>refHeld.byteLength - 2;
      const full = new EmitCore(1 << 16, 64, new StepBudget(1000000));
      full.record("item", item, itemEnd);
      const fullLen = full.main.len;
      for (let cap = 1; cap <= fullLen + 2; cap++) {
        const budget = new StepBudget(1000000);
        const ref = new EmitCore(cap, 64, budget);
        ref.record("item", item, itemEnd);
        const small = new RequestExtractor(cap, 64);
        expect(run(body, 1000000, small)).toBe(ExtractStatus.Ok);
        expect(small.prefixUsable).toBe(true);
        const refStream = String.UTF8.decodeUnsafe(ref.main.ptr, <usize>ref.main.len);
        expect(streamOf(small)).toBe(refStream, items[i] + " cap " + cap.toString());
        expect(small.streamTruncated).toBe(ref.main.full);
        expect(small.stepsUsed).toBe(scan + 1000000 - budget.left, items[i] + " cap " + cap.toString());
        // One step fewer: the budget runs out (in the write, or in the read after it).
        expect(run(body, small.stepsUsed - 1, small)).toBe(ExtractStatus.Ok);
        expect(small.prefixSkip).toBe(PrefixSkip.Budget);
      }
    }
  });

  it("takes an item back for a role that comes later, and for a reasoning item", () => {
    const message = '{"model":"m","input":[{"type":"message","cache_control":{},"role":"user","content":"hi"}]}';
    expect(streamFor(message)).toBe(msg("user", "hi"));
    expect(ex.stepsUsed).toBe(scanSteps(message));
    const reasoning = '{"model":"m","input":[{"id":"r","type":"reasoning","summary":[]},{"role":"user","content":"q"}]}';
    expect(streamFor(reasoning)).toBe(msg("user", "q"));
    expect(ex.stepsUsed).toBe(scanSteps(reasoning));
  });
});

describe("anthropic messages", () => {
  it("writes a string system and content blocks", () => {
    const body =
      '{"model":"claude","max_tokens":10,"system":"Sys","messages":[{"role":"user","content":[' +
      '{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},' +
      '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}},' +
      '{"type":"image","source":{"type":"url","url":"https://x/y.png"}},' +
      '{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]}';
    const s = streamFor(body);
    expect(s).toBe(
      msg("system", "Sys") +
        msg(
          "user",
          "a" + GS + "image" + US + "AAA" + US + US + GS + "image" + US + US + "https://x/y.png" + US + GS +
            US + '{"type":"tool_result","tool_use_id":"t1","content":"r"}',
        ),
    );
    expect(ex.kind).toBe(RequestKind.Anthropic);
  });

  it("leaves cache_control members out of JSON records wherever they are", () => {
    const cc = '"cache_control":{"type":"ephemeral","ttl":"5m"}';
    const s = streamFor(
      '{"model":"c","tools":[{' + cc + ',"name":"a"},{"name":"b",' + cc + '},{' + cc + "},{\"name\":\"c\"," + cc + ',"x":[1,{' + cc + "}]}]," +
        '"messages":[{"role":"user","content":[{"type":"tool_result",' + cc + ',"tool_use_id":"t","content":[{"type":"text","text":"r",' + cc + "}]}]}]}",
    );
    expect(s).toBe(
      FS + "tools" + US + '[{"name":"a"},{"name":"b"},{},{"name":"c","x":[1,{}]}]' +
        msg("user", US + '{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}]}'),
    );
    // Only keys: a string value "cache_control" stays.
    expect(streamFor('{"model":"c","tools":["cache_control",{"k":"cache_control"}],"messages":[]}')).toBe(
      FS + "tools" + US + '["cache_control",{"k":"cache_control"}]',
    );
  });

  it("writes system blocks joined by GS", () => {
    const s = streamFor('{"model":"c","messages":[{"role":"user","content":"u"}],"system":[{"type":"text","text":"S1"},{"type":"text","text":"S2"}]}');
    expect(s).toBe(msg("system", "S1" + GS + "S2") + msg("user", "u"));
    expect(ex.kind).toBe(RequestKind.Anthropic);
  });

  it("detects Anthropic-only blocks and honours a kind hint", () => {
    streamFor('{"model":"c","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]}');
    expect(ex.kind).toBe(RequestKind.Anthropic);
    run('{"model":"m","messages":[{"role":"user","content":"x"}]}', 1000, ex, RequestKind.Responses);
    expect(ex.kind).toBe(RequestKind.Responses);
  });
});

let sep = ",";
let colon = ":";
function member(k: string, v: string): string {
  return '"' + k + '"' + colon + v;
}
function pair(a: string, b: string, swap: bool): string {
  return swap ? b + sep + a : a + sep + b;
}

// A chat body whose member order is chosen by the bits of `order`.
function orderedBody(order: i32, turns: i32, spaced: bool): string {
  sep = spaced ? ", " : ",";
  colon = spaced ? ": " : ":";
  let messages = "[";
  for (let t = 0; t < turns; t++) {
    if (t > 0) messages += sep;
    const role = member("role", t % 2 == 0 ? '"user"' : '"assistant"');
    let content: string;
    if (t % 3 == 2) {
      const text = pair(member("type", '"text"'), member("text", '"part ' + t.toString() + ' é"'), (order & 8) != 0);
      const image = pair(member("type", '"image_url"'), member("image_url", "{" + member("url", '"https://x/' + t.toString() + '"') + "}"), (order & 16) != 0);
      content = member("content", "[{" + text + "}" + sep + "{" + image + "}]");
    } else {
      content = member("content", '"turn ' + t.toString() + ' \\u00e9\\n"');
    }
    let body = pair(role, content, (order & 4) != 0);
    if (t % 2 == 1) body = pair(body, member("name", '"n' + t.toString() + '"'), (order & 32) != 0);
    messages += "{" + body + "}";
  }
  messages += "]";
  const model = member("model", '"llama"');
  const msgs = member("messages", messages);
  const tools = member("tools", '[{"type":"function","function":{"name":"f"}}]');
  const temp = member("temperature", "0.5");
  let top = pair(model, msgs, (order & 1) != 0);
  top = pair(top, tools, (order & 2) != 0);
  top = pair(top, temp, (order & 64) != 0);
  return "{" + top + "}";
}

describe("canonical stream properties", () => {
  it("does not depend on member order or whitespace", () => {
    const reference = streamFor(orderedBody(0, 6, false));
    expect(reference.startsWith(FS + "tools" + US)).toBe(true);
    for (let order = 0; order < 128; order++) {
      expect(streamFor(orderedBody(order, 6, false))).toBe(reference);
      expect(streamFor(orderedBody(order, 6, true))).toBe(reference);
    }
  });

  it("makes each turn's stream a prefix of the next turn's", () => {
    for (let order = 0; order < 128; order += 37) {
      let previous = streamFor(orderedBody(order, 1, false));
      for (let turns = 2; turns <= 8; turns++) {
        const current = streamFor(orderedBody(order, turns, false));
        expect(current.length > previous.length).toBe(true);
        expect(current.startsWith(previous)).toBe(true);
        previous = current;
      }
    }
  });

  it("cuts at the stream cap on a character boundary and stays a prefix", () => {
    // Multibyte text and escaped separators: alone, behind tools (written after the scan and put in
    // front), behind Responses instructions that come after the input, in message attributes and
    // in records with a tag.
    const conversation =
      '[{"role":"user","content":"€uro 😀 a\\u001eb ' + "x".repeat(40) + '"},' +
      '{"role":"assistant","content":[{"text":"né","type":"text"}]}]';
    const bodies: string[] = [
      '{"model":"m","messages":' + conversation + "}",
      '{"model":"m","messages":' + conversation + ',"tools":[{"name":"t\\u00e9"}]}',
      '{"model":"m","input":' + conversation + ',"instructions":"ïnstr\\u001f"}',
      // Attributes (SUB name US value), one of them null.
      '{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f"}}],' +
        '"function_call":null,"name":"bø"},{"tool_call_id":"c","role":"tool","content":"ok"}]}',
      // Item records (FS item US json) and a prompt record.
      '{"model":"m","input":[{"type":"function_call","call_id":"c","arguments":"{}"},{"role":"user","content":"x"},7]}',
      '{"model":"m","prompt":"p\u00e9"}',
    ];
    for (let b = 0; b < bodies.length; b++) {
      const body = bodies[b];
      const full = streamFor(body);
      const fullBytes = String.UTF8.byteLength(full);
      for (let cap = 0; cap <= fullBytes + 3; cap++) {
        const small = new RequestExtractor(cap, 16);
        expect(run(body, 100000, small)).toBe(ExtractStatus.Ok);
        expect(small.prefixUsable).toBe(true);
        const part = streamOf(small);
        expect(small.streamLen <= cap).toBe(true);
        expect(small.streamTruncated).toBe(fullBytes > cap);
        expect(full.startsWith(part)).toBe(true);
        // Whole characters only, and never ESC without the byte it escapes.
        expect(String.UTF8.byteLength(part)).toBe(small.streamLen);
        expect(part.endsWith(ESC)).toBe(false);
        if (part.length < full.length) {
          // The next unit (a UTF-8 character, or an ESC pair) would not have fitted.
          const c = full.charCodeAt(part.length);
          let unit = c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0x800 ? 3 : c >= 0x80 ? 2 : 1;
          if (c == 0x1b) unit = 2;
          expect(small.streamLen + unit > cap).toBe(true);
        }
      }
    }
  });
});

describe("budget", () => {
  it("keeps the model when it comes first and the budget runs out later", () => {
    // {"model":"m",... : ObjStart, key, value are the first three steps.
    const body = '{"model":"m","messages":[{"role":"user","content":"' + "y".repeat(100) + '"},{"role":"user","content":"z"}]}';
    expect(run(body, 2)).toBe(ExtractStatus.BudgetNoModel);
    for (let steps = 3; steps < 16; steps++) {
      expect(run(body, steps)).toBe(ExtractStatus.Ok);
      expect(modelOf()).toBe("m");
      expect(ex.prefixUsable).toBe(false);
      expect(ex.prefixSkip).toBe(PrefixSkip.Budget);
      expect(ex.stepsUsed <= steps).toBe(true);
    }
  });

  it("reports BudgetNoModel when the model comes last", () => {
    const body = '{"messages":[{"role":"user","content":"hello"}],"temperature":1,"model":"m"}';
    expect(run(body)).toBe(ExtractStatus.Ok);
    const needed = ex.stepsUsed;
    expect(ex.prefixUsable).toBe(true);
    for (let steps = 0; steps < needed; steps++) {
      const status = run(body, steps);
      expect(status == ExtractStatus.BudgetNoModel || (status == ExtractStatus.Ok && !ex.prefixUsable)).toBe(true);
    }
    // The model is the last value, so only a budget that reaches it can find it.
    expect(run(body, needed - 3)).toBe(ExtractStatus.BudgetNoModel);
    expect(run(body, needed)).toBe(ExtractStatus.Ok);
    expect(ex.prefixUsable).toBe(true);
  });

  it("never traps and is monotonic in the budget for every API shape", () => {
    const bodies: string[] = [
      orderedBody(0, 5, true),
      orderedBody(127, 5, false),
      '{"model":"m","instructions":"S","input":[{"role":"user","content":[{"type":"input_text","text":"a"}]},{"type":"x"}]}',
      '{"system":[{"type":"text","text":"S"}],"model":"c","messages":[{"content":[{"text":"t","type":"text"}],"role":"user"}]}',
      '{"model":"m","prompt":["a","b"],"tools":[1,{"a":[2]}]}',
      '{"model":"c","tools":[{"name":"t","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"tool_result","cache_control":{"a":[1,2]},"content":"r"}]}]}',
    ];
    for (let b = 0; b < bodies.length; b++) {
      expect(run(bodies[b])).toBe(ExtractStatus.Ok);
      const full = streamOf();
      const needed = ex.stepsUsed;
      for (let steps = 0; steps <= needed; steps++) {
        run(bodies[b], steps);
        expect(ex.stepsUsed <= steps).toBe(true);
        if (steps == needed) {
          expect(ex.prefixUsable).toBe(true);
          expect(streamOf()).toBe(full);
        }
      }
    }
  });
});

describe("errors", () => {
  it("rejects invalid JSON anywhere in the body", () => {
    const bad: string[] = [
      "",
      "   ",
      '{"model":"m","messages":[{"role":"user","content":"x"},]}',
      '{"model":"m","messages":[{"role":"user","content":"x"}]} x',
      '{"model":"m","messages":[{"role":"user","content":"unterminated}]}',
      '{"model":"m","messages":[{"role":"user","content":"bad \\q escape"}]}',
      '{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":01}',
      '{"model":"m","messages":[{"role":"user" "content":"x"}]}',
      '{"model":"m","tools":[{"a":1,}],"messages":[]}',
      '{"model":"m","messages":[{"role":"user","content":"ctl \n"}]}',
      '{"model":"m" "messages":[]}',
    ];
    for (let i = 0; i < bad.length; i++) {
      const status = run(bad[i]);
      if (status != ExtractStatus.InvalidJson) throw new Error("not InvalidJson: " + bad[i]);
    }
  });

  it("rejects nesting beyond maxDepth without trapping", () => {
    const deep = '{"model":"m","tools":' + "[".repeat(5000) + "]".repeat(5000) + ',"messages":[]}';
    expect(run(deep)).toBe(ExtractStatus.InvalidJson);
    const e = new RequestExtractor(1024, 8);
    expect(run('{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"ok"}]}]}', 1000, e)).toBe(ExtractStatus.Ok);
    expect(run('{"model":"m","messages":[{"role":"user","content":[[[[[[[["too deep"]]]]]]]]}]}', 1000, e)).toBe(ExtractStatus.InvalidJson);
  });

  it("reports a missing model and non-object bodies", () => {
    expect(run('{"messages":[{"role":"user","content":"x"}]}')).toBe(ExtractStatus.MissingModel);
    expect(run('{"model":null,"messages":[]}')).toBe(ExtractStatus.MissingModel);
    expect(run('{"model":42}')).toBe(ExtractStatus.MissingModel);
    expect(run("[1,2]")).toBe(ExtractStatus.NotObject);
    expect(run('"model"')).toBe(ExtractStatus.NotObject);
    expect(run("[1,2")).toBe(ExtractStatus.InvalidJson);
  });

  it("marks a body without prompt fields", () => {
    expect(run('{"model":"m","temperature":1}')).toBe(ExtractStatus.Ok);
    expect(ex.prefixUsable).toBe(false);
    expect(ex.prefixSkip).toBe(PrefixSkip.NoPrompt);
    expect(ex.streamLen).toBe(0);
  });

  it("replaces ill-formed UTF-8 in content with U+FFFD", () => {
    const head = '{"model":"m","messages":[{"role":"user","content":"a';
    const tail = 'b"}]}';
    const buf = new ArrayBuffer(head.length + 2 + tail.length);
    const p = changetype<usize>(buf);
    String.UTF8.encodeUnsafe(changetype<usize>(head), head.length, p);
    store<u8>(p + <usize>head.length, 0xff);
    store<u8>(p + <usize>head.length + 1, 0xc3); // a lead byte without its continuation
    String.UTF8.encodeUnsafe(changetype<usize>(tail), tail.length, p + <usize>head.length + 2);
    expect(ex.extract(p, <usize>buf.byteLength, 1000)).toBe(ExtractStatus.Ok);
    expect(streamOf()).toBe(msg("user", "a\uFFFD\uFFFDb"));
  });
});

describe("model", () => {
  it("decodes the model name and flags truncation", () => {
    run('{"model":"gpt\\u002d4o","messages":[]}');
    expect(modelOf()).toBe("gpt-4o");
    expect(ex.modelTruncated).toBe(false);
    run('{"model":"' + "m".repeat(300) + '","messages":[]}');
    expect(ex.modelLen).toBe(256);
    expect(ex.modelTruncated).toBe(true);
    expect(modelOf()).toBe("m".repeat(256));
  });
});

describe("tools written during the scan", () => {
  // The tools record is written as the scan reads the value and copied into the stream; the stream and the steps are
  // those of EmitCore.record writing it from its span after the scan (as the extractor did), at every cap and budget.
  it("writes and draws what a write from the span writes and draws, at every cap", () => {
    const tools = '[ {"type":"function","cache_control":{"type":"x"},"function":{"name":"f","description":"say \\"hi\\" \\/ \\u0041\\n",' +
      '"parameters":{"type":"object","properties":{"n":{"type":"number","minimum":-1.5e3}},"required":["n",true,null]}}} ]';
    const messages = '"messages":[{"role":"user","content":"Hi"}]';
    const bodies: string[] = [
      '{"model":"m",' + messages + ',"tools":' + tools + "}",
      '{"tools":' + tools + ',"model":"m",' + messages + "}",
      // The last value of a repeated key is the one written.
      '{"tools":[{"name":"old"}],"model":"m",' + messages + ',"tools":' + tools + "}",
      '{"tools":[{"name":"old"}],"model":"m",' + messages + ',"tools":"' + "s".repeat(40) + '"}',
      '{"tools":{"a":[[],{}],"b":"x"},"model":"m",' + messages + "}",
    ];
    for (let i = 0; i < bodies.length; i++) {
      const body = bodies[i];
      const scan = scanSteps(body);
      refHeld = String.UTF8.encode(body);
      const base = changetype<usize>(refHeld);
      // The span of the last "tools" value: from after its key to the next top-level member or the end.
      const key = body.lastIndexOf('"tools":') + 8;
      const after = body.indexOf(',"model"', key) >= 0 ? body.indexOf(',"model"', key) : body.length - 1;
      const start = base + <usize>String.UTF8.byteLength(body.substring(0, key));
      const end = base + <usize>String.UTF8.byteLength(body.substring(0, after));
      const full = new EmitCore(1 << 16, 64, new StepBudget(1000000));
      full.record("tools", start, end);
      const wholeLen = full.main.len + String.UTF8.byteLength(msg("user", "Hi"));
      for (let cap = 1; cap <= wholeLen + 2; cap++) {
        const budget = new StepBudget(1000000);
        const ref = new EmitCore(cap, 64, budget);
        ref.record("tools", start, end);
        const small = new RequestExtractor(cap, 64);
        const what = body + " cap " + cap.toString();
        expect(run(body, 1000000, small)).toBe(ExtractStatus.Ok, what);
        expect(small.prefixUsable).toBe(true, what);
        const refRecord = String.UTF8.decodeUnsafe(ref.main.ptr, <usize>ref.main.len);
        expect(streamOf(small)).toBe((refRecord + msg("user", "Hi")).substring(0, cap), what);
        expect(small.streamTruncated).toBe(cap < wholeLen, what);
        expect(small.stepsUsed).toBe(scan + 1000000 - budget.left, what);
        // One step fewer: the budget runs out in the tools' read.
        expect(run(body, small.stepsUsed - 1, small)).toBe(ExtractStatus.Ok, what);
        expect(small.prefixSkip).toBe(PrefixSkip.Budget, what);
        expect(small.prefixUsable).toBe(false, what);
      }
    }
  });

  it("copies a written record into head only when it fits whole and the budget holds its steps", () => {
    const src = new StreamWriter(64);
    src.literal("0123456789");
    for (let cap = 0; cap <= 12; cap++) {
      for (let left = 2; left <= 4; left++) {
        const core = new EmitCore(cap, 8, new StepBudget(left));
        const copied = core.toolsRecordWritten(src, 3);
        expect(copied).toBe(cap >= 10 && left >= 3);
        expect(core.head.len).toBe(copied ? 10 : 0);
        expect(core.budget.left).toBe(copied ? left - 3 : left);
      }
    }
  });

  it("writes the first of tools and functions as read, the other from its span, both in order", () => {
    const body = '{"functions":[{"name":"g"}],"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":[{"name":"f"}]}';
    expect(streamFor(body)).toBe(FS + "tools" + US + '[{"name":"f"}]' + FS + "functions" + US + '[{"name":"g"}]' + msg("user", "Hi"));
    // Behind an Anthropic system prompt, after its record, at every budget up to the one it needs.
    const anthropic = '{"tools":[{"name":"f","input_schema":{}}],"model":"m","system":"S","messages":[{"role":"user","content":"Hi"}]}';
    expect(streamFor(anthropic)).toBe(msg("system", "S") + FS + "tools" + US + '[{"name":"f","input_schema":{}}]' + msg("user", "Hi"));
    const needed = ex.stepsUsed;
    for (let steps = needed - 8; steps < needed; steps++) {
      expect(run(anthropic, steps)).toBe(ExtractStatus.Ok);
      expect(ex.prefixSkip).toBe(PrefixSkip.Budget);
    }
  });
});
