import { createContext, deleteContext, HttpContext, rootById, streamById } from "../../assembly/abi/context";

describe("streamById", () => {
  it("finds each live stream and no deleted one, also when ids share their low bits", () => {
    createContext(1, 0);
    expect(rootById(1)).not.toBeNull();
    // 2, 258 and 514 fall in the same slot of the recent-streams cache; 3 in another.
    const ids: u32[] = [2, 258, 514, 3];
    for (let i = 0; i < ids.length; i++) createContext(ids[i], 1);
    for (let i = 0; i < ids.length; i++) expect(streamById(ids[i])!.id).toBe(ids[i]);
    deleteContext(514);
    expect(streamById(514)).toBeNull("deleted while it held the slot");
    expect(streamById(258)!.id).toBe(258);
    expect(streamById(2)!.id).toBe(2);
    deleteContext(2);
    expect(streamById(2)).toBeNull("deleted after another id took the slot");
    expect(streamById(258)!.id).toBe(258);
    createContext(770, 1);
    expect(streamById(770)!.id).toBe(770);
    expect(streamById(258)!.id).toBe(258);
    expect(streamById(0)).toBeNull("0 is no context");
    expect(streamById(1)).toBeNull("a root is not a stream");
    const s: HttpContext | null = streamById(3);
    expect(s!.id).toBe(3);
    for (let i = 0; i < ids.length; i++) deleteContext(ids[i]);
    deleteContext(770);
    expect(streamById(258)).toBeNull();
    expect(streamById(3)).toBeNull();
    expect(streamById(770)).toBeNull();
    deleteContext(1);
    expect(rootById(1)).toBeNull();
  });
});
