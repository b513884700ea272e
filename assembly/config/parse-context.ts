// State shared while parsing one configuration document: the scanner and the errors so far.
import { JsonScanner, JsonToken } from "../json/scanner";
import { currentString, describeCurrentValue, printable } from "./scanner-values";

/** Tokens a configuration document may take (it is read once per configure, not per request). */
export const CONFIG_MAX_STEPS: i32 = 1000000;
export const CONFIG_MAX_DEPTH: i32 = 64;

/** Bad fields named in the message; the rest are counted, so a huge bad document is not a huge log line. */
export const REPORTED_ERRORS: i32 = 20;

export class ParseContext {
  readonly sc: JsonScanner = new JsonScanner(CONFIG_MAX_DEPTH);
  /** "path: problem" of the first REPORTED_ERRORS bad fields, in document order. */
  readonly errors: Array<string> = [];
  /** Bad fields found so far, named or not. */
  errorCount: i32 = 0;

  /** Adds "path: problem". */
  error(path: string, problem: string): void {
    this.problem(path + ": " + problem);
  }

  /** Adds a problem of the whole document. */
  problem(text: string): void {
    if (this.errorCount < REPORTED_ERRORS) this.errors.push(text);
    this.errorCount++;
  }

  /** The problems as one line ("" if none). */
  message(): string {
    const more = this.errorCount - this.errors.length;
    return this.errors.join("; ") + (more > 0 ? "; and " + more.toString() + " more" : "");
  }

  /** Adds "path: expected <what>, got <current value>". */
  wrongValue(path: string, what: string): void {
    this.error(path, "expected " + what + ", got " + describeCurrentValue(this.sc));
  }

  /**
   * After a key token: the key, reported as a duplicate (at `parent.key`) if seenInObject, the keys the
   * enclosing object already had, holds it.
   */
  readKey(parent: string, seenInObject: Set<string>): string {
    const key = currentString(this.sc);
    if (seenInObject.has(key)) this.error(childPath(parent, key), "duplicate key");
    else seenInObject.add(key);
    return key;
  }

  /** Reads the next token; false if the document ended early or is not valid JSON. */
  nextValue(): bool {
    return this.sc.next() < JsonToken.End;
  }

  /** Skips the rest of the current value; false if the document is not valid JSON. */
  skipValue(): bool {
    const t = this.sc.skipValue();
    return t != JsonToken.Error && t != JsonToken.Budget && t != JsonToken.End;
  }
}

/** The displayed path of key under parent: `parent.key`, or `key` at the top. */
export function childPath(parent: string, key: string): string {
  const shown = key.length == 0 ? '""' : printable(key);
  return parent.length == 0 ? shown : parent + "." + shown;
}
