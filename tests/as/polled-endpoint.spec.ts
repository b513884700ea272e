import { PickerConfig } from "../../assembly/config/picker-config";
import { PolledEndpoint } from "../../assembly/platform/polled-endpoint";

/** A record as the poller publishes it for the member `generation` at `address`: owner, then the metrics bytes. */
function record(generation: u32, address: string, tail: i32 = 8): ArrayBuffer {
  const a = String.UTF8.encode(address);
  const n = a.byteLength;
  const out = new ArrayBuffer(5 + n + tail);
  store<u32>(changetype<usize>(out), generation);
  store<u8>(changetype<usize>(out), <u8>n, 4);
  memory.copy(changetype<usize>(out) + 5, changetype<usize>(a), <usize>n);
  memory.fill(changetype<usize>(out) + 5 + <usize>n, 0xab, <usize>tail);
  return out;
}

function owns(e: PolledEndpoint, r: ArrayBuffer, len: i32 = -1): bool {
  return e.owns(changetype<usize>(r), <usize>(len < 0 ? r.byteLength : len));
}

/** The member of slot 2 that joined as generation 7, at 10.0.0.1:8000. */
function member(): PolledEndpoint {
  return PolledEndpoint.discovered(new PickerConfig(), "list", 2, 7, "10.0.0.1:8000", 1);
}

describe("PolledEndpoint.owns (a discovered member's record starts with its owner)", () => {

  it("owns the record its own poll published", () => {
    const e = member();
    expect(owns(e, record(7, "10.0.0.1:8000"))).toBe(true);
    expect(owns(e, record(7, "10.0.0.1:8000", 0))).toBe(true);
  });

  it("does not own the slot's record of another generation at the same address (a pod back at its IP)", () => {
    const e = member();
    expect(owns(e, record(6, "10.0.0.1:8000"))).toBe(false);
    expect(owns(e, record(0x10007, "10.0.0.1:8000"))).toBe(false);
  });

  it("does not own a record of the same generation at another address, nor one whose address extends its own", () => {
    const e = member();
    expect(owns(e, record(7, "10.0.0.2:8000"))).toBe(false);
    expect(owns(e, record(7, "10.0.0.1:80001"))).toBe(false);
    expect(owns(e, record(7, "10.0.0.1:800"))).toBe(false);
  });

  it("does not own a record cut before its owner ends", () => {
    const e = member();
    const r = record(7, "10.0.0.1:8000");
    expect(owns(e, r, 5 + 12)).toBe(false);
    expect(owns(e, r, 0)).toBe(false);
  });
});
