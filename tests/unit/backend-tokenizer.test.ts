import assert from "node:assert/strict";
import { test } from "node:test";
import { decode as referenceDecode, encode as referenceEncode } from "gpt-tokenizer/encoding/o200k_base";
import { MAX_RUN_CHARS, Tokenizer } from "../../src-host/backend/tokenizer.ts";

test("ordinary text is encoded exactly as the plain o200k BPE does", () => {
  const tok = new Tokenizer();
  for (const text of ["Hello, world!", "lorem ipsum dolor ".repeat(500), "a".repeat(MAX_RUN_CHARS), " ".repeat(MAX_RUN_CHARS)]) {
    assert.deepEqual([...tok.encode(text)], referenceEncode(text));
  }
});

test("a run of millions of identical letters is encoded in bounded pieces and decodes back to the text", () => {
  // Before the cut, BPE merging of one 2-million-letter pre-token held the backend's thread for hours (quadratic).
  const tok = new Tokenizer({ memoEntries: 0 });
  const text = "Summarize: " + "x".repeat(2_000_000) + " done";
  const ids = tok.encode(text);
  assert.equal(referenceDecode([...ids]), text);
  assert.ok(ids.length > 2_000_000 / 64, `${ids.length} tokens`);
});

test("long runs are cut at the same places in a longer text with the same beginning, never inside a surrogate pair", () => {
  const tok = new Tokenizer({ memoEntries: 0 });
  const run = "y".repeat(MAX_RUN_CHARS - 1) + "😀".repeat(MAX_RUN_CHARS);
  const short = tok.encode("start " + run);
  const long = tok.encode("start " + run + " and more words after it");
  assert.deepEqual([...long.slice(0, short.length)], [...short]);
  assert.equal(referenceDecode([...long]), "start " + run + " and more words after it");
});
