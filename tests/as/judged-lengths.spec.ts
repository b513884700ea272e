import { isJudgedLength, judgedLengthBit, longJudgedLength } from "../../assembly/picker/judged-lengths";

// The gate's lengths as request-gate.ts builds them, for a given override header length.
function judges(keyLen: usize, overrideLen: usize): bool {
  const lengths = judgedLengthBit(7) | judgedLengthBit(10) | judgedLengthBit(12) | judgedLengthBit(14) |
    judgedLengthBit(16) | judgedLengthBit(overrideLen);
  return isJudgedLength(keyLen, lengths, longJudgedLength(overrideLen));
}

describe("judged header-name lengths", () => {
  it("admits exactly the judged names' lengths, the override header's at any length", () => {
    const overrides: usize[] = [30, 63, 64, 65, 70, 128, 200];
    for (let o = 0; o < overrides.length; o++) {
      const overrideLen = overrides[o];
      for (let keyLen: usize = 0; keyLen < 300; keyLen++) {
        const judged = keyLen == 7 || keyLen == 10 || keyLen == 12 || keyLen == 14 || keyLen == 16 || keyLen == overrideLen;
        expect(judges(keyLen, overrideLen)).toBe(judged, "name of " + keyLen.toString() + " bytes, override " + overrideLen.toString());
      }
    }
  });

  it("gives a name of 64 bytes or more no bit (a shift would wrap onto a short length)", () => {
    expect(judgedLengthBit(63)).toBe(<u64>1 << 63);
    expect(judgedLengthBit(64)).toBe(0);
    expect(judgedLengthBit(70)).toBe(0);
    expect(longJudgedLength(63)).toBe(0);
    expect(longJudgedLength(70)).toBe(70);
  });
});
