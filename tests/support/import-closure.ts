// The source files a script loads: itself and, transitively, every relative static import, plus the packages
// it imports by name. Enough for the examples' container images, whose code imports with literal specifiers.
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

export interface ImportClosure {
  /** Repository-relative paths, the entry first. */
  files: string[];
  /** Package names imported by bare specifier (node: builtins left out). */
  packages: string[];
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

export function importClosure(entry: string): ImportClosure {
  const files: string[] = [];
  const packages = new Set<string>();
  const pending = [normalize(entry)];
  while (pending.length) {
    const file = pending.pop()!;
    if (files.includes(file)) continue;
    files.push(file);
    for (const [, spec] of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      if (spec.startsWith(".")) pending.push(normalize(join(dirname(file), spec)));
      else if (!spec.startsWith("node:")) packages.add(packageName(spec));
    }
  }
  return { files, packages: [...packages].sort() };
}
