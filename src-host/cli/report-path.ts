// The HTML report a long run writes at its end: its folder is made and checked before the run starts, so a
// report path that cannot be written is a one-line error at once, not a stack trace after minutes of work.
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { usageError } from "../util/cli-args.ts";

export function prepareReportPath(tool: string, flag: string, path: string): void {
  // An empty path would pass the checks below (its folder is ".") and fail only at the write.
  if (path === "") usageError(tool, `--${flag} needs a path`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    accessSync(dirname(path), constants.W_OK);
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) usageError(tool, `--${flag} ${path} is a directory`);
  } catch (e) {
    usageError(tool, `cannot write --${flag} ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}
