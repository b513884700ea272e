import { MAX_HINT_ADDRESS, MAX_HINT_VALUE, ReplicaHintReader, writeReplicaHint } from "../../assembly/replica/replica-hint-value";

const out = heap.alloc(<usize>MAX_HINT_VALUE);
let held: ArrayBuffer = new ArrayBuffer(0);

const GATEWAY: u64 = 0x00c0ffee12345678;

function write(publishedAtMs: f64, heldUntilMs: f64, address: string, gateway: u64 = GATEWAY): string {
  const addr = String.UTF8.encode(address);
  const n = writeReplicaHint(out, publishedAtMs, heldUntilMs, gateway, changetype<usize>(addr), addr.byteLength);
  return String.UTF8.decodeUnsafe(out, <usize>n);
}

function read(r: ReplicaHintReader, value: string): bool {
  held = String.UTF8.encode(value);
  return r.read(changetype<usize>(held), held.byteLength);
}

describe("replica hint value", () => {
  it("carries when it was published, when its request was expected to end, the gateway and the endpoint", () => {
    const text = write(1764950400123.7, 1764950412000.2, "10.0.0.2:8000");
    expect(text).toBe("@1764950400123,1764950412000,00c0ffee12345678,10.0.0.2:8000");
    const r = new ReplicaHintReader();
    expect(read(r, text)).toBe(true);
    expect(r.publishedAtMs).toBe(1764950400123);
    expect(r.heldUntilMs).toBe(1764950412000);
    expect(r.gateway).toBe(GATEWAY);
    expect(String.UTF8.decodeUnsafe(r.addressPtr, <usize>r.addressLen)).toBe("10.0.0.2:8000");
    expect(read(r, write(1, 2, "a:1", 0xffffffffffffffff))).toBe(true);
    expect(r.gateway).toBe(0xffffffffffffffff);
  });

  it("never says a request released its blocks before it was routed", () => {
    expect(write(5000, 4000, "a:1", 1)).toBe("@5000,5000,0000000000000001,a:1");
    expect(write(5000, NaN, "a:1", 1)).toBe("@5000,5000,0000000000000001,a:1");
    expect(write(5000, 1e300, "a:1", 1)).toBe("@5000,999999999999999,0000000000000001,a:1");
  });

  it("writes nothing for an address it cannot carry", () => {
    expect(write(1, 2, "")).toBe("");
    expect(write(1, 2, "x".repeat(MAX_HINT_ADDRESS + 1))).toBe("");
    expect(write(1, 2, "x".repeat(MAX_HINT_ADDRESS)).length).toBe("@1,2,00c0ffee12345678,".length + MAX_HINT_ADDRESS);
  });

  it("refuses the first version's bare address and anything malformed", () => {
    const r = new ReplicaHintReader();
    const g = "00c0ffee12345678,";
    expect(read(r, "10.0.0.2:8000")).toBe(false);
    expect(read(r, "@1,2,a:1")).toBe(false); // no gateway
    expect(read(r, "@1,2," + g)).toBe(false);
    expect(read(r, "@1,2," + g.slice(0, 16))).toBe(false);
    expect(read(r, "@,2," + g + "a:1")).toBe(false);
    expect(read(r, "@1,," + g + "a:1")).toBe(false);
    expect(read(r, "@1;2," + g + "a:1")).toBe(false);
    expect(read(r, "@12345678901234567,2," + g + "a:1")).toBe(false);
    expect(read(r, "@1,2,00C0FFEE12345678,a:1")).toBe(false); // upper case
    expect(read(r, "@1,2,00c0ffee1234567,a:1")).toBe(false); // 15 digits
    expect(read(r, "@1,2," + g + "x".repeat(MAX_HINT_ADDRESS + 1))).toBe(false);
    expect(read(r, "@1,2," + g + "a:1")).toBe(true);
  });
});
