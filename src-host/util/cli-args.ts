// Argument handling shared by the CLIs (src-host/cli/, backend/cli.ts, package/cli.ts): node:util parseArgs in strict mode plus --help/-h.
// `--help` prints the usage text on stdout and exits 0 before any work; an unknown flag, a missing value or a
// positional argument is one line on stderr ("<tool>: ...; see --help") and exit code 2, never a stack trace.
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
type HelpOption = { help: { type: "boolean"; short: "h" } };

/** One line on stderr, exit code 2: the CLIs' answer to a bad argument. */
export function usageError(tool: string, message: string): never {
  process.stderr.write(`${tool}: ${message}\n`);
  process.exit(2);
}

export function parseCliArgs<O extends Options>(tool: string, usage: string, options: O) {
  const config = { options: { ...options, help: { type: "boolean", short: "h" } } as O & HelpOption, strict: true as const };
  let values;
  try {
    ({ values } = parseArgs(config));
  } catch (e) {
    // parseArgs appends advice on arguments that start with '-' to some messages; keep the first line, and of an
    // unknown option the first sentence. A value that starts with '-' (`--scale -1`) reads as a missing one; say
    // how to pass it.
    const lines = (e as Error).message.split("\n");
    const message = lines[0].replace(/\. To specify a positional argument.*$/, "").replace(/\.$/, "");
    const dash = lines.find((l) => l.startsWith("To specify an option argument starting with a dash"))?.match(/'(--[\w-]+)=-XYZ'/);
    usageError(tool, `${message}${dash ? ` (a value starting with '-' is written ${dash[1]}=-VALUE)` : ""}; see --help`);
  }
  if ((values as { help?: boolean }).help) {
    process.stdout.write(usage.trimEnd() + "\n");
    process.exit(0);
  }
  return values;
}

/** A number from a flag's text, or a one-line error naming the flag. `positive` means > 0; min and max are inclusive. */
export function numberArg(tool: string, flag: string, text: string, check: { integer?: boolean; positive?: boolean; min?: number; max?: number } = {}): number {
  const n = text.trim() === "" ? NaN : Number(text);
  const { integer = false, positive = false, min = -Infinity, max = Infinity } = check;
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || (positive && !(n > 0)) || n < min || n > max) {
    const kind = `${positive ? "a positive " : min === 0 ? "a non-negative " : "an "}${integer ? "integer" : "number"}`.replace(/^an n/, "a n");
    const range = min > -Infinity && min !== 0 ? ` from ${min}` : "";
    const upTo = max < Infinity ? ` up to ${max}` : "";
    usageError(tool, `--${flag} must be ${kind}${range}${upTo}, got "${text}"`);
  }
  return n;
}
