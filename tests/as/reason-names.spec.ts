// Each reason enum that names a counter has exactly one name per value (the names are the metric suffixes).
import { FALLBACK_NAMES, Fallback } from "../../assembly/core/fallback";
import { PREFIX_SKIP_NAMES, PrefixSkip } from "../../assembly/request/prefix-skip";

describe("reason names", () => {
  it("one fallback name per Fallback value", () => {
    expect(FALLBACK_NAMES.length).toBe(Fallback.Count);
    expect(FALLBACK_NAMES[Fallback.BodyNotDelivered]).toBe("body_not_delivered");
    expect(FALLBACK_NAMES[Fallback.BodyIncomplete]).toBe("body_incomplete");
    expect(FALLBACK_NAMES[Fallback.DegradedShare]).toBe("degraded_share");
  });

  it("one prefix-skip name per PrefixSkip value", () => {
    expect(PREFIX_SKIP_NAMES.length).toBe(PrefixSkip.Count);
    expect(PREFIX_SKIP_NAMES[PrefixSkip.ShortPrompt]).toBe("short_prompt");
  });
});
