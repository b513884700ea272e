// Reading the scanner's current value as text, for configuration parsing and its error messages.
import { JsonScanner, JsonToken } from "../json/scanner";

/** Longest excerpt of an offending value or key shown in an error message. */
const SHOWN_CHARS: i32 = 48;

/** The current String token, unescaped ("" if not on a string). */
export function currentString(sc: JsonScanner): string {
  if (sc.token != JsonToken.String) return "";
  // Unescaping can grow a byte into U+FFFD (3 bytes), never more.
  const cap = <i32>(sc.end - sc.start) * 3 + 4;
  const buf = new ArrayBuffer(cap);
  const n = sc.decodeStringTo(changetype<usize>(buf), cap);
  return String.UTF8.decodeUnsafe(changetype<usize>(buf), <usize>n);
}

/** s truncated and with control characters, quotes and backslashes escaped, so a message stays one line. */
export function printable(s: string): string {
  let out = "";
  const n = min(s.length, SHOWN_CHARS);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c == 0x7f) {
      const hex = c.toString(16);
      out += "\\u" + "0000".substring(hex.length) + hex;
    } else if (c == 0x22 || c == 0x5c) {
      out += "\\" + String.fromCharCode(c);
    } else {
      out += String.fromCharCode(c);
    }
  }
  return n < s.length ? out + "..." : out;
}

/** The value the scanner is on, as shown after "got": `"text"`, `-1`, `true`, `an object`. */
export function describeCurrentValue(sc: JsonScanner): string {
  const t = sc.token;
  if (t == JsonToken.String) return "\"" + printable(currentString(sc)) + "\"";
  if (t == JsonToken.Number) return printable(String.UTF8.decodeUnsafe(sc.start, sc.end - sc.start));
  if (t == JsonToken.True) return "true";
  if (t == JsonToken.False) return "false";
  if (t == JsonToken.Null) return "null";
  if (t == JsonToken.ObjStart) return "an object";
  if (t == JsonToken.ArrStart) return "an array";
  return "nothing";
}
