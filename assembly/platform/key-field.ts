// One part of a shared-data name built from configuration values: its length, ':', the value, so that no two
// different lists of values spell the same name ("a" + "bc" and "ab" + "c" differ).
export function keyField(s: string): string {
  return s.length.toString() + ":" + s;
}
