// Token kinds returned by JsonScanner.next().
export namespace JsonToken {
  export const ObjStart: i32 = 1;
  export const ObjEnd: i32 = 2;
  export const ArrStart: i32 = 3;
  export const ArrEnd: i32 = 4;
  export const String: i32 = 5;
  export const Number: i32 = 6;
  export const True: i32 = 7;
  export const False: i32 = 8;
  export const Null: i32 = 9;
  /** The document ended after one complete value. */
  export const End: i32 = 10;
  /** The input is not valid JSON (or nests deeper than maxDepth). */
  export const Error: i32 = 11;
  /** The step budget ran out before the document ended. */
  export const Budget: i32 = 12;
}
