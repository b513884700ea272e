// What a Dockerfile puts in its image from the build context: WORKDIR, COPY and ENTRYPOINT as Docker reads
// them (exec form only), and the .dockerignore filter Docker applies to the context first (patterns in order,
// `!` re-includes, the last match wins; `**` spans directories; a pattern matching a directory covers its files).
import { readFileSync } from "node:fs";
import { basename, posix } from "node:path";

export interface Dockerfile {
  workdir: string;
  copies: Array<{ sources: string[]; dest: string }>;
  entrypoint: string[];
}

export function parseDockerfile(file: string): Dockerfile {
  const out: Dockerfile = { workdir: "/", copies: [], entrypoint: [] };
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    const [instr, ...rest] = line.split(/\s+/);
    switch (instr?.toUpperCase()) {
      case "WORKDIR":
        out.workdir = posix.resolve(out.workdir, rest.join(" "));
        break;
      case "COPY": {
        const args = rest.filter((a) => !a.startsWith("--"));
        if (rest.some((a) => a.startsWith("--from"))) break;
        out.copies.push({ sources: args.slice(0, -1).map((s) => posix.normalize(s)), dest: args[args.length - 1] });
        break;
      }
      case "ENTRYPOINT":
        out.entrypoint = JSON.parse(line.slice("ENTRYPOINT".length));
        break;
    }
  }
  return out;
}

/** Where `file` (context-relative) ends up in the image, or undefined when no COPY takes it. */
export function imagePathOf(df: Dockerfile, file: string): string | undefined {
  let landed: string | undefined;
  for (const { sources, dest } of df.copies) {
    const destAbs = posix.resolve(df.workdir, dest);
    const intoDir = sources.length > 1 || dest.endsWith("/");
    for (const src of sources) {
      const target = intoDir ? posix.join(destAbs, basename(src)) : destAbs;
      if (file === src) landed = target;
      else if (file.startsWith(src + "/")) landed = posix.join(target, file.slice(src.length + 1));
    }
  }
  return landed;
}

function patternRegex(pattern: string): RegExp {
  const body = posix
    .normalize(pattern)
    .split(/(\*\*\/?|\*|\?)/)
    .map((part) => (part === "**" || part === "**/" ? ".*" : part === "*" ? "[^/]*" : part === "?" ? "[^/]" : part.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** True when the .dockerignore rules leave `file` (context-relative) in the build context. */
export function dockerignoreKeeps(ignoreFile: string, file: string): boolean {
  const rules = readFileSync(ignoreFile, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => ({ keep: l.startsWith("!"), re: patternRegex(l.replace(/^!/, "").replace(/^\/+/, "")) }));
  const parts = file.split("/");
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  let kept = true;
  for (const { keep, re } of rules) if (prefixes.some((p) => re.test(p))) kept = keep;
  return kept;
}
