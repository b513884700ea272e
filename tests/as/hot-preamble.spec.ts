// Hot preambles: the extractor finds where the first user message starts, PreambleHeat counts how much of the recent
// traffic carries each preamble, and spreadHotPreamble credits every endpoint with a hot one its holders cannot take.
import { ExtractStatus, RequestExtractor } from "../../assembly/request/extract";
import { ChainHasher, chainSeed } from "../../assembly/prefix/chain";
import { PreambleHeat, spreadHotPreamble } from "../../assembly/prefix/hot-preamble";

const ex = new RequestExtractor(1 << 16, 64);
const chain = new ChainHasher(256);
let held: ArrayBuffer = new ArrayBuffer(0);
const CHUNK: i32 = 16;

const TOOLS = "You are a coding agent. Tools: read_file(path), write_file(path, text), run(command). Answer tersely.";

// A conversation's first turn on the tool prompt; returns the chain length.
function firstTurn(task: string): i32 {
  const body = '{"model":"m","messages":[{"role":"system","content":"' + TOOLS + '"},{"role":"user","content":"' + task + '"}]}';
  held = String.UTF8.encode(body);
  expect<i32>(ex.extract(changetype<usize>(held), <usize>held.byteLength, 1000000)).toBe(ExtractStatus.Ok);
  return chain.build(ex.streamPtr, <usize>ex.streamLen, CHUNK, chainSeed(ex.modelPtr, <usize>ex.modelLen, 0, 0));
}

function array(list: i32[]): StaticArray<i32> {
  const out = new StaticArray<i32>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list[i];
  return out;
}

const heldBefore = new StaticArray<i32>(4);

function spread(heat: PreambleHeat, matched: StaticArray<i32>, n: i32): bool {
  return spreadHotPreamble(heat, matched, array([0, 1, 2, 3]), 4, chain.ends, chain.hashes, n, ex.firstUserStart, false, heldBefore);
}

describe("firstUserStart", () => {
  it("is where the first user message's record starts, after the preamble", () => {
    firstTurn("Fix the failing test in parser.ts, then run the suite.");
    expect<bool>(ex.firstUserStart > 0).toBe(true);
    expect<i32>(ex.firstUserStart).toBeLessThan(ex.firstUserEnd);
    const before = String.UTF8.decodeUnsafe(ex.streamPtr, <usize>ex.firstUserStart);
    expect<bool>(before.includes(TOOLS)).toBe(true, "the tool prompt precedes it");
    expect<bool>(before.includes("parser.ts")).toBe(false, "the task does not");
    const body = '{"model":"m","messages":[{"role":"user","content":"hello there"}]}';
    held = String.UTF8.encode(body);
    ex.extract(changetype<usize>(held), <usize>held.byteLength, 1000000);
    expect<i32>(ex.firstUserStart).toBe(0, "no preamble");
  });
});

describe("PreambleHeat", () => {
  it("gives the share of the last 256 decisions (at least 8) that carried the same preamble", () => {
    const heat = new PreambleHeat();
    expect<f64>(heat.observe(7)).toBe(1.0 / 8, "a worker's first requests say little");
    expect<f64>(heat.observe(0)).toBe(0.0, "no preamble");
    expect<f64>(heat.observe(9)).toBe(1.0 / 8);
    expect<f64>(heat.observe(7)).toBe(2.0 / 8);
    for (let i = 0; i < 28; i++) heat.observe(7);
    expect<f64>(heat.observe(7)).toBeCloseTo(31.0 / 33);
    for (let i = 0; i < 256; i++) heat.observe(0);
    expect<f64>(heat.observe(7)).toBeCloseTo(1.0 / 256, 9, "the earlier ones left the window");
  });

  it("reads a preamble whose table slot counts another one as cold", () => {
    const heat = new PreambleHeat();
    heat.observe(5);
    expect<f64>(heat.observe(5 + 1024)).toBe(0.0, "same slot, another key");
    for (let i = 0; i < 256; i++) heat.observe(0);
    expect<f64>(heat.observe(5 + 1024)).toBeCloseTo(1.0 / 256, 9, "the slot is free again");
    for (let i = 0; i < 300; i++) heat.observe(i % 2 == 0 ? 5 : 5 + 1024);
    expect<f64>(heat.observe(5 + 1024)).toBeGreaterThanOrEqual(0.0, "counts never go negative");
  });
});

describe("spreadHotPreamble", () => {
  it("credits every endpoint with a preamble that every request carries while one endpoint holds it", () => {
    const heat = new PreambleHeat();
    const n = firstTurn("Fix the failing test in parser.ts, then run the suite.");
    let preamble = 0;
    while (preamble < n && <i32>chain.ends[preamble] <= ex.firstUserStart) preamble++;
    expect<i32>(preamble).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) heat.observe(chain.hashes[preamble - 1]);
    expect<bool>(spread(heat, array([preamble, 0, 0, 0]), n)).toBe(true, "share 1: needs all four endpoints");
    const matched = array([preamble, 0, 2, 0]);
    spread(heat, matched, n);
    for (let i = 0; i < 4; i++) expect<i32>(matched[i]).toBe(preamble);
    expect<i32>(heldBefore[0]).toBe(preamble, "what each endpoint held before is kept");
    expect<i32>(heldBefore[1]).toBe(0);
    expect<i32>(heldBefore[2]).toBe(2);
    expect<bool>(spread(heat, array([preamble, preamble, preamble, preamble]), n)).toBe(false, "held everywhere");
    expect<bool>(spread(heat, array([preamble + 1, 0, 0, 0]), n)).toBe(false, "a longer match (the conversation's history) counts as usual");
    expect<bool>(spread(heat, array([0, 0, 0, 0]), n)).toBe(false, "nobody holds anything: nothing to credit");
    const hinted = array([preamble - 1, 0, 0, 0]);
    expect<bool>(spread(heat, hinted, n)).toBe(true, "a hint short of the preamble's end is the holders' match");
    expect<i32>(hinted[3]).toBe(preamble - 1);
    const home = array([preamble, 0, 0, 0]);
    expect<bool>(spreadHotPreamble(heat, home, array([0, 1, 2, 3]), 4, chain.ends, chain.hashes, n, ex.firstUserStart, true, heldBefore))
      .toBe(false, "a conversation whose previous endpoint is known stays there");
    expect<i32>(home[1]).toBe(0);
  });

  it("leaves a preamble alone that its holders can take", () => {
    const heat = new PreambleHeat();
    const n = firstTurn("Rename the config field and update the docs.");
    let preamble = 0;
    while (preamble < n && <i32>chain.ends[preamble] <= ex.firstUserStart) preamble++;
    // One request in five carries it: one endpoint of the four is enough.
    for (let i = 0; i < 255; i++) heat.observe(i % 5 == 0 ? chain.hashes[preamble - 1] : <u64>(1000 + i));
    expect<bool>(spread(heat, array([preamble, 0, 0, 0]), n)).toBe(false);
    // Every request: all four endpoints are needed, two hold it.
    const hot = new PreambleHeat();
    for (let i = 0; i < 100; i++) hot.observe(chain.hashes[preamble - 1]);
    expect<bool>(spread(hot, array([preamble, preamble, 0, 0]), n)).toBe(true);
    expect<bool>(spread(hot, array([preamble, preamble, preamble, preamble]), n)).toBe(false);
  });
});
