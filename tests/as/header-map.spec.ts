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
});
