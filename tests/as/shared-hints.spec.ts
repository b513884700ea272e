import { previousLandmark, topLandmark } from "../../assembly/prefix/shared-hints";

// The landmark positions a chain of n chunks publishes and probes: 0, 1, 3, 7, then 15, 31, 47, ...
function landmarks(n: i32): Array<i32> {
  const out = new Array<i32>();
  for (let p = topLandmark(n); p >= 0; p = previousLandmark(p)) out.push(p);
  return out;
}

function expected(n: i32): Array<i32> {
  const out = new Array<i32>();
  for (let p = n - 1; p >= 0; p--) {
    const isPowerLandmark = p < 16 && ((p + 1) & p) == 0;
    const isStrideLandmark = p >= 15 && (p + 1) % 16 == 0;
    if (isPowerLandmark || isStrideLandmark) out.push(p);
  }
  return out;
}

describe("shared prefix hint landmarks", () => {
  it("are 0, 1, 3, 7 and then every 16th position, below the chain length, longest first", () => {
    for (let n = 0; n <= 200; n++) {
      const got = landmarks(n);
      const want = expected(n);
      expect(got.length).toBe(want.length, n.toString());
      for (let i = 0; i < got.length; i++) expect(got[i]).toBe(want[i], n.toString());
    }
  });

  it("a longer chain's landmarks include every landmark of a shorter one (so a next turn finds the last)", () => {
    for (let n = 1; n <= 100; n++) {
      const shorter = landmarks(n);
      const longer = landmarks(n + 7);
      for (let i = 0; i < shorter.length; i++) expect(longer.includes(shorter[i])).toBe(true);
    }
  });
});
