// Multi-turn conversations as agentic clients send them, turn after turn: OpenAI Chat Completions with tools,
// the Responses API (stateless, and with previous_response_id), Anthropic Messages with tools, thinking and
// prompt-caching breakpoints. Each turn's stream must be usable and extend the previous turn's stream, and the
// request options that change from turn to turn without changing the prompt must not enter it.
import { ExtractStatus, PrefixSkip, RequestExtractor } from "../../assembly/request/extract";

const ex = new RequestExtractor(1 << 18, 64);
let held: ArrayBuffer = new ArrayBuffer(0);

function streamFor(body: string): string {
  held = String.UTF8.encode(body);
  const status = ex.extract(changetype<usize>(held), <usize>held.byteLength, 1000000);
  if (status != ExtractStatus.Ok) throw new Error("status " + status.toString() + " for " + body);
  if (!ex.prefixUsable) throw new Error("prefix not usable (skip " + ex.prefixSkip.toString() + ") for " + body);
  expect(ex.prefixSkip).toBe(PrefixSkip.None);
  return String.UTF8.decodeUnsafe(ex.streamPtr, <usize>ex.streamLen);
}

function printable(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c < 0x20 ? "<" + c.toString(16) + ">" : s.charAt(i);
  }
  return out;
}

/** Each body's stream is usable and strictly extends the previous body's stream. */
function expectEachTurnExtendsThePrevious(bodies: string[]): void {
  let previous = "";
  for (let i = 0; i < bodies.length; i++) {
    const current = streamFor(bodies[i]);
    if (i > 0 && (!current.startsWith(previous) || current.length <= previous.length)) {
      throw new Error(
        "turn " + (i + 1).toString() + " does not extend turn " + i.toString() + ":\n  " + printable(previous) + "\n  " +
          printable(current),
      );
    }
    previous = current;
  }
}

function expectSameStream(a: string, b: string): void {
  const sa = streamFor(a);
  const sb = streamFor(b);
  if (sa != sb) throw new Error("streams differ:\n  " + printable(sa) + "\n  " + printable(sb));
}

/** The first n entries joined with commas. */
function first(items: string[], n: i32): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    if (i > 0) out += ",";
    out += items[i];
  }
  return out;
}

// ---- OpenAI Chat Completions ----

const CHAT_TOOLS =
  '[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object",' +
  '"properties":{"path":{"type":"string"}},"required":["path"]}}},{"type":"function","function":{"name":"run",' +
  '"description":"Run a shell command","strict":true,"parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}}]';

// One agent conversation; CHAT_TURNS[k] is how many messages turn k + 1 sends.
const CHAT_MESSAGES: string[] = [
  '{"role":"developer","content":"You are a careful coding agent."}',
  '{"role":"user","content":[{"type":"text","text":"Why does the build fail?"},' +
    '{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo=","detail":"high"}}]}',
  // The assistant message as the Python SDK's model_dump() echoes it, with a server's reasoning_content.
  '{"content":null,"refusal":null,"role":"assistant","annotations":[],"audio":null,"function_call":null,' +
    '"tool_calls":[{"id":"call_1","function":{"arguments":"{\\"path\\":\\"build.log\\"}","name":"read_file"},"type":"function"}],' +
    '"reasoning_content":"The log will say."}',
  '{"role":"tool","tool_call_id":"call_1","content":"error TS2304: Cannot find name \'x\'."}',
  '{"role":"assistant","content":"","tool_calls":[' +
    '{"id":"call_2","type":"function","function":{"name":"run","arguments":"{\\"cmd\\":\\"npm test\\"}"}},' +
    '{"id":"call_3","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"a.ts\\"}"}}]}',
  '{"role":"tool","tool_call_id":"call_2","name":"run","content":[{"type":"text","text":"1 failing"}]}',
  '{"role":"tool","tool_call_id":"call_3","content":"let y = 1;"}',
  '{"role":"assistant","content":"`x` is never declared in a.ts.","reasoning_content":"Simple."}',
  '{"role":"user","name":"dev","content":"Fix it then."}',
];
const CHAT_TURNS: i32[] = [2, 4, 7, 9];

// Options a client changes from turn to turn (or between retries) without changing the prompt.
function chatOptions(k: i32): string {
  return (
    '"stream":' + (k % 2 == 0 ? "true" : "false") + ',"stream_options":{"include_usage":true},"temperature":0.' +
    k.toString() + ',"max_completion_tokens":' + (1000 * (k + 1)).toString() + ',"max_tokens":' + (k + 7).toString() +
    ',"user":"u-' + k.toString() + '","metadata":{"turn":"' + k.toString() + '"},"store":' + (k % 2 == 0 ? "true" : "false") +
    ',"seed":' + k.toString() + ',"tool_choice":"auto","parallel_tool_calls":' + (k % 2 == 1 ? "true" : "false") +
    ',"reasoning_effort":"' + (k % 2 == 0 ? "low" : "high") + '","prompt_cache_key":"pk' + k.toString() + '"'
  );
}

function chatBody(messages: string, tools: string, k: i32): string {
  return '{"model":"gpt-4.1",' + chatOptions(k) + ',"messages":[' + messages + '],"tools":' + tools + "}";
}

describe("OpenAI chat completions, agent with tools", () => {
  it("each turn extends the previous one", () => {
    const bodies: string[] = [];
    for (let k = 0; k < CHAT_TURNS.length; k++) bodies.push(chatBody(first(CHAT_MESSAGES, CHAT_TURNS[k]), CHAT_TOOLS, k));
    expectEachTurnExtendsThePrevious(bodies);
  });

  it("leaves out the options that change from turn to turn", () => {
    const messages = first(CHAT_MESSAGES, 7);
    expectSameStream(chatBody(messages, CHAT_TOOLS, 1), chatBody(messages, CHAT_TOOLS, 2));
    expectSameStream(chatBody(messages, CHAT_TOOLS, 3), '{"model":"gpt-4.1","messages":[' + messages + '],"tools":' + CHAT_TOOLS + "}");
  });

  it("leaves out reasoning_content, which servers return and only some clients send back", () => {
    const withIt = '{"role":"assistant","content":"ok","reasoning_content":"because"}';
    const without = '{"role":"assistant","content":"ok"}';
    const user = '{"role":"user","content":"q"}';
    expectSameStream(chatBody(user + "," + withIt, "[]", 0), chatBody(user + "," + without, "[]", 0));
    // A client that echoes it for the latest answer only and strips it from older ones still extends.
    expectEachTurnExtendsThePrevious([
      chatBody(user + "," + withIt + "," + user, "[]", 0),
      chatBody(user + "," + without + "," + user + "," + withIt + "," + user, "[]", 1),
    ]);
  });

  it("reads null, empty and absent assistant content alike next to tool_calls", () => {
    const calls = '"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]';
    const a = streamFor(chatBody('{"role":"assistant","content":null,' + calls + "}", "[]", 0));
    expect(streamFor(chatBody('{"role":"assistant","content":"",' + calls + "}", "[]", 0))).toBe(a);
    expect(streamFor(chatBody('{"role":"assistant",' + calls + "}", "[]", 0))).toBe(a);
    expect(streamFor(chatBody("{" + calls + ',"role":"assistant"}', "[]", 0))).toBe(a);
  });

  it("reads a null attribute as an absent one", () => {
    // The Python SDK's model_dump() writes function_call, tool_calls and name as null; other clients leave them out.
    const dumped = '{"role":"assistant","content":"ok","function_call":null,"tool_calls":null,"name":null}';
    expectSameStream(chatBody('{"role":"user","content":"q"},' + dumped, "[]", 0), chatBody('{"role":"user","content":"q"},{"role":"assistant","content":"ok"}', "[]", 0));
  });

  it("reads a string content and the same text as one text part alike (cache breakpoints moved by the client)", () => {
    // Cline, Roo and OpenRouter clients turn the last user messages into text parts carrying cache_control,
    // and turn them back into strings once they are no longer the last.
    const u1 = '{"role":"user","content":"Fix the bug"}';
    const u1Marked = '{"role":"user","content":[{"type":"text","text":"Fix the bug","cache_control":{"type":"ephemeral"}}]}';
    const a1 = '{"role":"assistant","content":"Done."}';
    const u2Marked = '{"role":"user","content":[{"type":"text","text":"Thanks","cache_control":{"type":"ephemeral"}}]}';
    expectEachTurnExtendsThePrevious([
      chatBody(u1Marked, CHAT_TOOLS, 0),
      chatBody(u1 + "," + a1 + "," + u2Marked, CHAT_TOOLS, 1),
    ]);
  });

  it("leaves out cache_control on tools", () => {
    // LiteLLM and OpenRouter accept an Anthropic cache breakpoint on an OpenAI tool; clients add it once the
    // prompt is long enough to be cached, or move it when the tool list changes order.
    const marked =
      '[{"type":"function","function":{"name":"read_file","parameters":{}}},' +
      '{"type":"function","function":{"name":"run","parameters":{}},"cache_control":{"type":"ephemeral"}}]';
    const plain = '[{"type":"function","function":{"name":"read_file","parameters":{}}},{"type":"function","function":{"name":"run","parameters":{}}}]';
    const user = '{"role":"user","content":"q"}';
    expectSameStream(chatBody(user, marked, 0), chatBody(user, plain, 0));
  });
});

// ---- OpenAI Responses API ----

const RESPONSES_TOOLS =
  '[{"type":"function","name":"shell","description":"Runs a command","strict":false,"parameters":{"type":"object",' +
  '"properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"]}}]';

// A stateless (store: false) agent conversation: every turn sends the whole history, with the output items of
// the previous responses (reasoning with encrypted_content, function calls, assistant messages) as input.
const RESPONSES_ITEMS: string[] = [
  '{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd=/repo</environment_context>"}]}',
  '{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}',
  '{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**Listing**"}],"content":null,"encrypted_content":"gAAAAABoZ1x"}',
  '{"type":"function_call","id":"fc_1","status":"completed","arguments":"{\\"command\\":[\\"ls\\"]}","call_id":"call_1","name":"shell"}',
  '{"type":"function_call_output","call_id":"call_1","output":"a.ts\\nb.ts"}',
  // An output message as the API returns it: role after content, text after annotations.
  '{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Two files."}],"role":"assistant"}',
  '{"role":"user","content":"thanks"}',
];
const RESPONSES_TURNS: i32[] = [2, 5, 7];

function responsesOptions(k: i32): string {
  return (
    '"tool_choice":"auto","parallel_tool_calls":false,"reasoning":{"effort":"' + (k % 2 == 0 ? "medium" : "high") +
    '","summary":"auto"},"store":false,"stream":true,"include":["reasoning.encrypted_content"],"prompt_cache_key":"conv-' +
    k.toString() + '","max_output_tokens":' + (100 + k).toString() + ',"temperature":1,"metadata":{"k":"' + k.toString() +
    '"},"user":"u' + k.toString() + '","service_tier":"auto","truncation":"disabled","text":{"verbosity":"medium"}'
  );
}

function responsesBody(input: string, k: i32): string {
  return (
    '{"model":"gpt-5-codex","instructions":"You are Codex, a coding agent.","input":' + input + ',"tools":' +
    RESPONSES_TOOLS + "," + responsesOptions(k) + "}"
  );
}

describe("OpenAI Responses API", () => {
  it("each stateless turn extends the previous one", () => {
    const bodies: string[] = [];
    for (let k = 0; k < RESPONSES_TURNS.length; k++) {
      bodies.push(responsesBody("[" + first(RESPONSES_ITEMS, RESPONSES_TURNS[k]) + "]", k));
    }
    expectEachTurnExtendsThePrevious(bodies);
  });

  it("a turn extends the previous one whether the client sends reasoning items back or not", () => {
    const withReasoning = "[" + first(RESPONSES_ITEMS, 5) + "]";
    const without = withReasoning.replace(RESPONSES_ITEMS[2] + ",", "");
    expect(without != withReasoning).toBe(true);
    expectSameStream(responsesBody(withReasoning, 0), responsesBody(without, 0));
    expectEachTurnExtendsThePrevious([
      responsesBody(withReasoning, 0),
      responsesBody("[" + first(RESPONSES_ITEMS, 7).replace(RESPONSES_ITEMS[2] + ",", "") + "]", 1),
    ]);
    // Other items without a role are still written.
    expect(streamFor(responsesBody(without, 0)).includes("function_call_output")).toBe(true);
  });

  it("extends a first turn whose input was a string", () => {
    expectEachTurnExtendsThePrevious([
      responsesBody('"list the files"', 0),
      responsesBody('[{"role":"user","content":"list the files"},' + RESPONSES_ITEMS[5] + "," + RESPONSES_ITEMS[6] + "]", 1),
      responsesBody('[{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]},' + RESPONSES_ITEMS[5] + "," + RESPONSES_ITEMS[6] + "," + RESPONSES_ITEMS[5] + "]", 2),
    ]);
  });

  it("leaves out the options that change from turn to turn, previous_response_id included", () => {
    const input = "[" + first(RESPONSES_ITEMS, 5) + "]";
    expectSameStream(responsesBody(input, 0), responsesBody(input, 1));
    const chained = '{"previous_response_id":"resp_9","conversation":null,' + responsesBody(input, 2).substring(1);
    expectSameStream(responsesBody(input, 0), chained);
  });

  it("with previous_response_id a turn holds only the new items, so it cannot extend the previous turn", () => {
    // The server keeps the earlier items; the body is not a growing prefix, and the pod whose cache holds the
    // conversation is the one that stored the previous response. The stream stays usable (tools, instructions
    // and the new items), so such a turn is routed like a new conversation sharing the agent's preamble.
    const turn1 = streamFor(responsesBody("[" + first(RESPONSES_ITEMS, 2) + "]", 0));
    const turn2 = streamFor(
      '{"model":"gpt-5-codex","previous_response_id":"resp_1","store":true,"instructions":"You are Codex, a coding agent.",' +
        '"input":[' + RESPONSES_ITEMS[4] + '],"tools":' + RESPONSES_TOOLS + "}",
    );
    expect(turn2.startsWith(turn1)).toBe(false);
    // What the two share is the preamble: tools and instructions.
    const preambleEnd = turn1.indexOf(String.fromCharCode(0x1e) + "user");
    expect(preambleEnd > 0).toBe(true);
    expect(turn2.startsWith(turn1.substring(0, preambleEnd))).toBe(true);
  });
});

// ---- Anthropic Messages ----

const ANTHROPIC_TOOLS_PLAIN =
  '[{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},' +
  '{"name":"Bash","description":"Runs a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}]';
const ANTHROPIC_TOOLS_MARKED =
  '[{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},' +
  '{"name":"Bash","description":"Runs a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}}},"cache_control":{"type":"ephemeral"}}]';
const ANTHROPIC_SYSTEM =
  '[{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Environment: /repo","cache_control":{"type":"ephemeral","ttl":"1h"}}]';

const CC = '"cache_control":{"type":"ephemeral"}';
const THINKING = '{"type":"thinking","thinking":"The log first.","signature":"EqQBCkYIBxgCKkBsig=="}';
const TOOL_USE_1 = '{"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"build.log"}}';
const TOOL_USE_2 = '{"type":"tool_use","id":"toolu_02","name":"Bash","input":{"command":"npm test"}}';
const IMAGE = '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}';

// The client puts a cache breakpoint on the last block of the newest user message, so the block that carried
// it in one turn carries none in the next.
function anthropicUser(k: i32, marked: bool): string {
  const cc = marked ? "," + CC : "";
  if (k == 0) return '{"role":"user","content":[' + IMAGE + ',{"type":"text","text":"Why does the build fail?"' + cc + "}]}";
  if (k == 1) return '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"error TS2304"' + cc + "}]}";
  if (k == 2) {
    return (
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":' +
      '[{"type":"text","text":"1 failing"}]' + cc + "}]}"
    );
  }
  return '{"role":"user","content":[{"type":"text","text":"Fix it then."' + cc + "}]}";
}

const ANTHROPIC_ASSISTANT: string[] = [
  '{"role":"assistant","content":[' + THINKING + ',{"type":"text","text":"Reading the log."},' + TOOL_USE_1 + "]}",
  '{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3"},' + TOOL_USE_2 + "]}",
  '{"role":"assistant","content":[{"type":"text","text":"x is never declared."}]}',
];

function anthropicBody(turn: i32, tools: string): string {
  let messages = "";
  for (let k = 0; k <= turn; k++) {
    if (k > 0) messages += "," + ANTHROPIC_ASSISTANT[k - 1] + ",";
    messages += anthropicUser(k, k == turn);
  }
  return (
    '{"model":"claude-sonnet-4-5","max_tokens":' + (32000 + turn).toString() + ',"temperature":1,"stream":true,' +
    '"thinking":{"type":"enabled","budget_tokens":' + (1000 * (turn + 1)).toString() + '},"metadata":{"user_id":"session_' +
    turn.toString() + '"},"tool_choice":{"type":"auto"},"system":' + ANTHROPIC_SYSTEM + ',"tools":' + tools +
    ',"messages":[' + messages + "]}"
  );
}

describe("Anthropic messages, agent with tools, thinking and cache breakpoints", () => {
  it("each turn extends the previous one though the cache breakpoint moves", () => {
    const bodies: string[] = [];
    for (let turn = 0; turn < 4; turn++) bodies.push(anthropicBody(turn, ANTHROPIC_TOOLS_MARKED));
    expectEachTurnExtendsThePrevious(bodies);
  });

  it("leaves out cache_control on tools, tool_use and nested tool_result blocks", () => {
    expectSameStream(anthropicBody(2, ANTHROPIC_TOOLS_MARKED), anthropicBody(2, ANTHROPIC_TOOLS_PLAIN));
    const plain = '{"model":"c","messages":[{"role":"assistant","content":[' + TOOL_USE_1 + ']},{"role":"user","content":[' +
      '{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"r"}]}]}]}';
    const marked = '{"model":"c","messages":[{"role":"assistant","content":[' + TOOL_USE_1.substring(0, TOOL_USE_1.length - 1) + "," + CC +
      '}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"r",' + CC + "}]}]}]}";
    expectSameStream(marked, plain);
    // A key "cache_control" spelled with escapes is the same key.
    expectSameStream(marked.replace('"cache_control"', '"cache\\u005fcontrol"'), plain);
  });

  it("a turn extends the previous one whether the client sends earlier thinking back or strips it", () => {
    // Anthropic strips thinking from earlier turns itself, so clients differ: some echo every block, some drop them.
    const echoed = anthropicBody(2, ANTHROPIC_TOOLS_PLAIN);
    const stripped = anthropicBody(3, ANTHROPIC_TOOLS_PLAIN)
      .replace(THINKING + ",", "")
      .replace('{"type":"redacted_thinking","data":"EmwKAhgBEgy3"},', "");
    expect(echoed.includes('"type":"thinking"') && echoed.includes("redacted_thinking")).toBe(true);
    expect(stripped.includes('"type":"thinking"') || stripped.includes("redacted_thinking")).toBe(false);
    expectEachTurnExtendsThePrevious([echoed, stripped]);
  });

  it("leaves out thinking and redacted_thinking blocks with their separator, wherever their type comes", () => {
    const body = (content: string): string => '{"model":"c","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[' +
      content + ']},{"role":"user","content":"go on"}]}';
    const text = (t: string): string => '{"type":"text","text":"' + t + '"}';
    const late = '{"signature":"EqQB","thinking":"hmm","type":"thinking"}';
    const redacted = '{"type":"redacted_thinking","data":"EmwK"}';
    expectSameStream(body(THINKING + "," + text("a")), body(text("a")));
    expectSameStream(body(text("a") + "," + late + "," + text("b")), body(text("a") + "," + text("b")));
    expectSameStream(body(redacted + "," + late + "," + TOOL_USE_1), body(TOOL_USE_1));
    // Text parts still get their separator, and a message of thinking alone keeps its head.
    expect(streamFor(body(text("a") + "," + late + "," + text("b"))).includes("a" + String.fromCharCode(0x1d) + "b")).toBe(true);
    expectSameStream(body(THINKING), body(""));
  });

  it("reads system as a string and as blocks alike", () => {
    const user = ',"messages":[{"role":"user","content":"hi"}]}';
    expectSameStream('{"model":"c","system":"S"' + user, '{"model":"c","system":[{"type":"text","text":"S",' + CC + "}]" + user);
  });

  it("leaves out the options that change from turn to turn", () => {
    const a = anthropicBody(1, ANTHROPIC_TOOLS_PLAIN);
    const b = a.replace('"max_tokens":32001', '"max_tokens":1024').replace('"stream":true', '"stream":false')
      .replace('"budget_tokens":2000', '"budget_tokens":4000').replace("session_1", "session_2");
    expect(a != b).toBe(true);
    expectSameStream(a, b);
  });
});

// ---- Fields that namespace the engine's KV cache ----

function expectStreamsDifferInFirstBytes(a: string, b: string): void {
  const sa = streamFor(a);
  const sb = streamFor(b);
  let same = 0;
  while (same < sa.length && same < sb.length && sa.charCodeAt(same) == sb.charCodeAt(same)) same++;
  // Both streams are far longer than the few bytes of their namespace record: they must part there.
  if (same > 40) throw new Error("streams share " + same.toString() + " characters:\n  " + printable(sa) + "\n  " + printable(sb));
}

describe("request fields that namespace the engine's prefix cache", () => {
  const LONG = "You are a careful coding agent. Read the files before you change them, and run the tests afterwards.";
  const chat = (extra: string, turn: i32): string => {
    let messages = '{"role":"system","content":"' + LONG + '"},{"role":"user","content":"first"}';
    if (turn > 0) messages += ',{"role":"assistant","content":"done"},{"role":"user","content":"second"}';
    return '{"model":"m",' + extra + '"messages":[' + messages + "]}";
  };

  it("vLLM and SGLang cache_salt: different salts share nothing, one salt extends turn by turn", () => {
    expectStreamsDifferInFirstBytes(chat('"cache_salt":"tenant-a",', 0), chat('"cache_salt":"tenant-b",', 0));
    expectStreamsDifferInFirstBytes(chat('"cache_salt":"tenant-a",', 0), chat("", 0));
    expectEachTurnExtendsThePrevious([chat('"cache_salt":"tenant-a",', 0), chat('"cache_salt":"tenant-a",', 1)]);
    // Wherever the member comes, and on the other APIs.
    expectSameStream(chat('"cache_salt":"s",', 1), chat("", 1).replace('"model":"m",', '"model":"m","cache_salt":"s",'));
    expectStreamsDifferInFirstBytes(
      '{"model":"m","cache_salt":"a","prompt":"' + LONG + '"}', '{"model":"m","cache_salt":"b","prompt":"' + LONG + '"}',
    );
    expectStreamsDifferInFirstBytes(
      '{"model":"m","input":"' + LONG + '","cache_salt":"a"}', '{"model":"m","input":"' + LONG + '","cache_salt":"b"}',
    );
  });

  it("SGLang extra_key and lora_path namespace the cache too", () => {
    expectStreamsDifferInFirstBytes(chat('"extra_key":"a",', 0), chat('"extra_key":"b",', 0));
    expectStreamsDifferInFirstBytes(chat('"lora_path":"sql-lora",', 0), chat("", 0));
    expectEachTurnExtendsThePrevious([chat('"lora_path":"sql-lora",', 0), chat('"lora_path":"sql-lora",', 1)]);
  });

  it("a null namespace field is an absent one", () => {
    expectSameStream(chat('"cache_salt":null,"lora_path":null,', 1), chat("", 1));
  });
});

// ---- Spellings of one JSON value ----

describe("JSON values written as JSON (tools, tool calls, tool results) read the same however they are escaped", () => {
  it("escaped and raw non-ASCII, escaped solidus, \\u spellings of short escapes", () => {
    const tools = (d: string): string =>
      '{"model":"m","tools":[{"type":"function","function":{"name":"lire","description":"' + d + '","parameters":{}}}],' +
      '"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function",' +
      '"function":{"name":"lire","arguments":"{\\"p\\":\\"' + d + '\\"}"}}]}]}';
    // Python's json.dumps (ensure_ascii) escapes non-ASCII, JavaScript's JSON.stringify does not, PHP escapes "/".
    expectSameStream(tools("Lit un fichier \\u00e9crit \\ud83d\\ude00"), tools("Lit un fichier écrit 😀"));
    expectSameStream(tools("a\\/b"), tools("a/b"));
    expectSameStream(tools("x\\u000ay\\u0022\\u005c"), tools('x\\ny\\"\\\\'));
    expectSameStream(tools("tab\\u0009\\u001f"), tools("tab\\t\\u001F"));
    // Different text still differs.
    const a = streamFor(tools("a/b"));
    const b = streamFor(tools("a\\\\b"));
    expect(a == b).toBe(false);
  });

  it("in Anthropic tool_use input and tool_result content", () => {
    const body = (s: string): string =>
      '{"model":"c","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"q":"' + s +
      '"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"' + s + '"}]}]}';
    expectSameStream(body("caf\\u00e9 \\/"), body("café /"));
  });
});
