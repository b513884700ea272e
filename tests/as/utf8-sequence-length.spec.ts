// sequenceLength (the inline fast cases) against multiByteSequenceLength (table 3-7 written out).
import { multiByteSequenceLength, sequenceLength } from "../../assembly/json/utf8";

// Bytes around every boundary the table uses: ASCII, each continuation range edge, lead bytes.
const EDGES: StaticArray<u8> = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xf0, 0xf4, 0xff];

describe("sequenceLength", () => {
  it("agrees with multiByteSequenceLength for every lead byte, second byte and end", () => {
    const buf = new Uint8Array(8);
    const p = buf.dataStart;
    let failures = 0;
    for (let lead = 0x80; lead <= 0xff; lead++) {
      buf[0] = <u8>lead;
      for (let b1 = 0; b1 <= 0xff; b1++) {
        buf[1] = <u8>b1;
        for (let i = 0; i < EDGES.length; i++) {
          buf[2] = EDGES[i];
          for (let j = 0; j < EDGES.length; j++) {
            buf[3] = EDGES[j];
            for (let n: usize = 1; n <= 4; n++) {
              if (sequenceLength(p, p + n) != multiByteSequenceLength(p, p + n)) failures++;
            }
          }
        }
      }
    }
    expect(failures).toBe(0);
  });
});
