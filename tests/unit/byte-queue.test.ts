import { test } from "node:test";
import assert from "node:assert/strict";
import { ByteQueue } from "../../src-host/host/byte-queue.ts";

test("bytes come out in order across appends, consumes, growth and compaction", () => {
  const q = new ByteQueue();
  const expected: number[] = [];
  let next = 0;
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let round = 0; round < 2000; round++) {
    const chunk = new Uint8Array(Math.floor(random() * 3000));
    for (let i = 0; i < chunk.length; i++) expected.push((chunk[i] = next++ & 0xff));
    q.append(chunk);
    assert.deepEqual([...q.view()], expected);
    const take = Math.floor(random() * (q.length + 1));
    q.consume(take);
    expected.splice(0, take);
    assert.equal(q.length, expected.length);
  }
});

test("a reply arriving in many small chunks is copied a bounded number of times, not once per chunk", () => {
  const q = new ByteQueue();
  const chunk = new Uint8Array(64 * 1024);
  const chunks = 512; // 32 MiB, none consumed: a reply read only once complete
  for (let i = 0; i < chunks; i++) q.append(chunk);
  assert.equal(q.length, chunks * chunk.length);
  assert.ok(q.copiedBytes <= 3 * chunks * chunk.length, `copied ${q.copiedBytes} bytes for ${chunks * chunk.length}`);
});

test("consuming a little at a time while appending keeps copies within a few times the bytes appended", () => {
  const q = new ByteQueue();
  let appended = 0;
  for (let i = 0; i < 5000; i++) {
    q.append(new Uint8Array(1000));
    appended += 1000;
    q.consume(990);
  }
  assert.ok(q.copiedBytes <= 3 * appended, `copied ${q.copiedBytes} bytes for ${appended}`);
});
