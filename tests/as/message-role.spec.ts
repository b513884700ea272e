// messageRole: the byte compare of unescaped roles agrees with the decoding compare of escaped ones.
import { JsonScanner, JsonToken } from "../../assembly/json/scanner";
import { MessageRole, messageRole } from "../../assembly/request/emit-core";

let held: ArrayBuffer = new ArrayBuffer(0);
const sc = new JsonScanner(8);

function roleOf(jsonString: string): MessageRole {
  held = String.UTF8.encode("[" + jsonString + "]");
  sc.reset(changetype<usize>(held), <usize>held.byteLength, 100);
  sc.next();
  if (sc.next() != JsonToken.String) throw new Error("no string in " + jsonString);
  return messageRole(sc.start, sc.end, sc.hasEscapes);
}

describe("messageRole", () => {
  it("reads the roles, plain or escaped", () => {
    expect(roleOf('"user"')).toBe(MessageRole.User);
    expect(roleOf('"assistant"')).toBe(MessageRole.Assistant);
    expect(roleOf('"system"')).toBe(MessageRole.System);
    expect(roleOf('"developer"')).toBe(MessageRole.System);
    expect(roleOf('"\\u0075ser"')).toBe(MessageRole.User);
    expect(roleOf('"assistan\\u0074"')).toBe(MessageRole.Assistant);
    expect(roleOf('"syste\\u006d"')).toBe(MessageRole.System);
    expect(roleOf('"\\u0064eveloper"')).toBe(MessageRole.System);
  });

  it("reads anything else as Other", () => {
    const others = ['"User"', '"users"', '"use"', '"assistanT"', '"assistans"', '"systen"', '"Developer"', '"developed"', '"tool"', '""', '"us\\ner"'];
    for (let i = 0; i < others.length; i++) expect(roleOf(others[i])).toBe(MessageRole.Other, others[i]);
  });
});
