// Token kinds returned by JsonScanner.next().
export enum JsonToken {
  ObjStart = 1,
  ObjEnd = 2,
  ArrStart = 3,
  ArrEnd = 4,
  String = 5,
  Number = 6,
  True = 7,
  False = 8,
  Null = 9,
  /** The document ended after one complete value. */
  End = 10,
  /** The input is not valid JSON (or nests deeper than maxDepth). */
  Error = 11,
  /** The step budget ran out before the document ended. */
  Budget = 12,
}
