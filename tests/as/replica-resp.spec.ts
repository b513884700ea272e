import { ReplyKind, RespReply, RespWriter } from "../../assembly/replica/resp";
import { MAX_LOOKUP_KEYS, lookupPositions, publishPositions } from "../../assembly/replica/replica-positions";

function written(w: RespWriter): string {
  return String.UTF8.decodeUnsafe(w.buf, <usize>w.len);
}

let held: ArrayBuffer = new ArrayBuffer(0);
function readReply(r: RespReply, text: string): i32 {
  held = String.UTF8.encode(text);
  return r.read(changetype<usize>(held), <usize>held.byteLength);
}

function probes(look: StaticArray<i32>, n: i32, p: i32): bool {
  for (let i = 0; i < n; i++) if (look[i] == p) return true;
  return false;
}

describe("RespWriter", () => {
  it("writes one command as an array of bulk strings", () => {
    const w = new RespWriter(256);
    const mget = String.UTF8.encode("MGET");
    const prefix = String.UTF8.encode("p:");
    w.begin(3);
    w.bulk(changetype<usize>(mget), 4);
    w.bulkKey(changetype<usize>(prefix), 2, 0x0123456789abcdef);
    w.bulkInt(600000);
    expect(w.overflow).toBe(false);
    expect(written(w)).toBe("*3\r\n$4\r\nMGET\r\n$18\r\np:0123456789abcdef\r\n$6\r\n600000\r\n");
  });

  it("flags a command that does not fit instead of writing past its buffer", () => {
    const w = new RespWriter(16);
    const prefix = String.UTF8.encode("prefix:");
    w.begin(1);
    w.bulkKey(changetype<usize>(prefix), 7, 1);
    expect(w.overflow).toBe(true);
    expect(w.len).toBeLessThanOrEqual(16);
  });
});

describe("RespReply", () => {
  it("reads an MGET reply with values and nils", () => {
    const r = new RespReply(4);
    expect(readReply(r, "*3\r\n$-1\r\n$13\r\n10.0.0.1:8000\r\n_\r\n")).toBe(ReplyKind.Array);
    expect(r.count).toBe(3);
    expect(r.elementLen[0]).toBe(-1);
    expect(String.UTF8.decodeUnsafe(r.elementPtr[1], <usize>r.elementLen[1])).toBe("10.0.0.1:8000");
    expect(r.elementLen[2]).toBe(-1);
  });

  it("tells errors, a full Redis, integers and garbage apart", () => {
    const r = new RespReply(4);
    expect(readReply(r, "-NOPERM this user has no permissions\r\n")).toBe(ReplyKind.Error);
    expect(readReply(r, "-OOM command not allowed when used memory > 'maxmemory'.\r\n")).toBe(ReplyKind.Full);
    expect(readReply(r, ":9\r\n")).toBe(ReplyKind.Integer);
    expect(r.integer).toBe(9);
    expect(readReply(r, "+OK\r\n")).toBe(ReplyKind.Garbage);
    expect(readReply(r, "*2\r\n$5\r\nab\r\n")).toBe(ReplyKind.Garbage);
    expect(readReply(r, "*9\r\n")).toBe(ReplyKind.Garbage);
    expect(readReply(r, "*1\r\n$3\r\nabc\r\nextra")).toBe(ReplyKind.Garbage);
    expect(readReply(r, "")).toBe(ReplyKind.Garbage);
  });
});

describe("replica positions", () => {
  it("publishes the tail and the cross-worker hint positions, longest first", () => {
    const scratch = new StaticArray<i32>(8);
    const out = new StaticArray<i32>(16);
    const n = publishPositions(40, scratch, out);
    expect(out[0]).toBe(39);
    expect(out[1]).toBe(31);
    expect(out[2]).toBe(15);
    for (let i = 1; i < n; i++) expect(out[i]).toBeLessThan(out[i - 1]);
  });

  it("a lookup probes where the previous turn's tail and hints lie", () => {
    const scratch = new StaticArray<i32>(8);
    const pub = new StaticArray<i32>(16);
    const look = new StaticArray<i32>(16);
    // A turn of 37 chunks, then the next turn added 3 chunks: its lookup meets the previous tail (36).
    publishPositions(37, scratch, pub);
    const n = lookupPositions(40, scratch, look);
    let met = false;
    for (let i = 0; i < n; i++) if (look[i] == pub[0]) met = true;
    expect(met).toBe(true);
    for (let i = 1; i < n; i++) expect(look[i]).toBeLessThan(look[i - 1]);
  });

  it("a lookup also probes the previous turn's tail when that turn added more chunks than the tail probes", () => {
    const scratch = new StaticArray<i32>(8);
    const pub = new StaticArray<i32>(16);
    const look = new StaticArray<i32>(MAX_LOOKUP_KEYS);
    // A turn of 21 chunks, then a turn that added 24 (a tool's output): 20 is neither a tail probe nor a hint position.
    publishPositions(21, scratch, pub);
    const without = lookupPositions(45, scratch, look);
    expect(probes(look, without, pub[0])).toBe(false);
    const n = lookupPositions(45, scratch, look, 21);
    expect(n).toBe(without + 1);
    expect(probes(look, n, pub[0])).toBe(true);
    for (let i = 1; i < n; i++) expect(look[i]).toBeLessThan(look[i - 1]);
    // Inside the tail probes, or unknown: nothing added.
    expect(lookupPositions(45, scratch, look, 40)).toBe(without);
    expect(lookupPositions(45, scratch, look, 0)).toBe(without);
  });
});
