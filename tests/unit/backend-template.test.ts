import assert from "node:assert/strict";
import { test } from "node:test";
import { encode as referenceEncode } from "gpt-tokenizer/encoding/o200k_base";
import {
  renderChatPrompt, renderCompletionPrompt, segmentsToText, segmentsToTokens, TemplateError,
} from "../../src-host/backend/chat-template.ts";
import { fillerOutput } from "../../src-host/backend/filler-text.ts";
import { specialTokenId, Tokenizer } from "../../src-host/backend/tokenizer.ts";

test("chat messages render as ChatML and end with the assistant prefix", () => {
  const text = segmentsToText(
    renderChatPrompt([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "https://x/y.png" } }, { type: "text", text: "here" }] },
    ]),
  );
  assert.equal(
    text,
    "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n" +
      '<|im_start|>user\nLook\n<image url="https://x/y.png">\nhere<|im_end|>\n<|im_start|>assistant\n',
  );
});

test("tools are described in the system section at the very start", () => {
  const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }];
  const withSystem = segmentsToText(renderChatPrompt([{ role: "system", content: "Sys" }, { role: "user", content: "Q" }], tools));
  assert.ok(withSystem.startsWith("<|im_start|>system\nSys\n\n# Tools"));
  assert.ok(withSystem.includes(JSON.stringify(tools[0])));
  assert.equal(withSystem.match(/<\|im_start\|>system/g)?.length, 1, "the system message is merged, not repeated");
  const without = segmentsToText(renderChatPrompt([{ role: "user", content: "Q" }], tools));
  assert.ok(without.startsWith("<|im_start|>system\n# Tools"));
  // Same conversation without tools: a different first block, as for a real model.
  assert.ok(!segmentsToText(renderChatPrompt([{ role: "user", content: "Q" }])).includes("# Tools"));
});

test("bad message shapes are rejected with a TemplateError", () => {
  assert.throws(() => renderChatPrompt([]), TemplateError);
  assert.throws(() => renderChatPrompt("hi"), TemplateError);
  assert.throws(() => renderChatPrompt([{ content: "x" }]), TemplateError);
  assert.throws(() => renderChatPrompt([{ role: "user", content: [{ type: "video" }] }]), TemplateError);
  assert.throws(() => renderChatPrompt([{ role: "user", content: 5 }]), TemplateError);
});

test("template tokens equal the rendered text encoded run by run between the special markers", () => {
  const tok = new Tokenizer();
  const segments = renderChatPrompt([
    { role: "system", content: "You are a helpful librarian." },
    { role: "user", content: "普通图书可以借多久？ And can I renew it, e.g. twice?" },
  ]);
  const ours = segmentsToTokens(segments, tok);
  // gpt-tokenizer 4.0.0 does not reliably split repeated special tokens itself (allowedSpecial "all"
  // still merges ".<|im_end|>"), so the oracle splits at the markers and encodes each text run whole.
  const reference = segmentsToText(segments)
    .split(/(<\|im_start\|>|<\|im_end\|>)/)
    .filter((run) => run.length > 0)
    .flatMap((run) => (run === "<|im_start|>" || run === "<|im_end|>" ? [specialTokenId(run)] : referenceEncode(run)));
  assert.deepEqual(ours, reference);
  assert.equal(ours[0], specialTokenId("<|im_start|>"));
  // Characters and tokens really differ.
  assert.ok(ours.length < segmentsToText(segments).length);
});

test("user text that spells a special marker stays plain text", () => {
  const tok = new Tokenizer();
  const ids = segmentsToTokens(renderCompletionPrompt("a <|im_start|> b"), tok);
  assert.ok(!ids.includes(specialTokenId("<|im_start|>")));
  assert.ok(ids.length > 3);
});

test("the tokenizer memo is bounded and returns the same ids", () => {
  const tok = new Tokenizer({ memoEntries: 3 });
  const first = tok.encode("hello world");
  for (let i = 0; i < 10; i++) tok.encode(`text ${i}`);
  assert.equal(tok.memoSize, 3);
  assert.deepEqual(tok.encode("hello world"), first);
  assert.equal(tok.countTokens(""), 0);
});

test("filler answers re-tokenize to exactly the ids that were generated", () => {
  for (const offset of [0, 7, 123]) {
    const out = fillerOutput(50, offset);
    assert.equal(out.tokenIds.length, 50);
    assert.deepEqual(referenceEncode(out.pieces.join("")), out.tokenIds);
  }
  assert.notDeepEqual(fillerOutput(5, 0).tokenIds, fillerOutput(5, 1).tokenIds);
});
