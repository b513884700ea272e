import { HeaderMapReader, HeaderMapWriter } from "../../assembly/abi/header-map";

describe("HeaderMapReader", () => {
  it("tells a map read to its end from one whose pairs run past its bytes", () => {
    const writer = new HeaderMapWriter().clear().add(":method", "POST").add("x-gateway-destination-endpoint", "10.0.0.9:80");
    const ptr = writer.finish();
    const reader = new HeaderMapReader();
    expect(reader.reset(ptr, <usize>writer.length)).toBe(true);
    let pairs = 0;
    while (reader.next()) pairs++;
    expect(pairs).toBe(2);
    expect(reader.atEnd()).toBe(true);
    // Cut inside the second pair: the sizes still fit, its data does not.
    expect(reader.reset(ptr, <usize>writer.length - 4)).toBe(true);
    pairs = 0;
    while (reader.next()) pairs++;
    expect(pairs).toBe(1);
    expect(reader.atEnd()).toBe(false, "the second pair was never read");
    expect(reader.reset(ptr, 0)).toBe(true, "zero bytes: the empty map");
    expect(reader.atEnd()).toBe(true);
  });

  it("reads, at every cut of a map, exactly the pairs whose bytes all lie before the cut", () => {
    const writer = new HeaderMapWriter().clear().add(":method", "POST").add("", "").add("x-empty", "").add("", "v")
      .add("content-length", "1024");
    const ptr = writer.finish();
    const full = <usize>writer.length;
    const reader = new HeaderMapReader();
    for (let cut: usize = 0; cut <= full; cut++) {
      const ok = reader.reset(ptr, cut);
      // The count and five size pairs take 44 bytes; fewer cannot hold them (0 and 1 byte read as an empty map).
      expect(ok).toBe(cut <= 1 || cut >= 44, "reset at " + cut.toString());
      // Pair k ends (its value's NUL included) at the k-th end below.
      let expected = 0;
      let end: usize = 44;
      const sizes = [[7, 4], [0, 0], [7, 0], [0, 1], [14, 4]];
      for (let k = 0; k < sizes.length && ok && cut >= 44; k++) {
        end += <usize>(sizes[k][0] + sizes[k][1] + 2);
        if (end <= cut) expected++;
        else break;
      }
      let pairs = 0;
      let at: usize = ptr + 44;
      while (reader.next()) {
        expect(reader.keyPtr).toBe(at);
        expect(reader.valuePtr).toBe(at + reader.keyLen + 1);
        at = reader.valuePtr + reader.valueLen + 1;
        pairs++;
      }
      expect(pairs).toBe(expected, "pairs read at " + cut.toString());
      expect(reader.atEnd()).toBe(cut == full || cut <= 1 || cut < 44, "atEnd at " + cut.toString());
      expect(reader.next()).toBe(false);
    }
  });
});
