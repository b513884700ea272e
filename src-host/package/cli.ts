// Packages build/higress.wasm as an OCI image layout: tsx src-host/package/cli.ts [--wasm F] [--out DIR] [--name N] [--tag T]
import { readFileSync } from "node:fs";
import { parseCliArgs, usageError } from "../util/cli-args.ts";
import { imageNameProblem, packageWasmPlugin } from "./oci.ts";

const USAGE = `usage: npm run package -- [options]   (or tsx src-host/package/cli.ts [options])
  --wasm FILE     module to package (default build/higress.wasm)
  --out DIR       output directory (default build/oci); writes DIR/NAME/ and DIR/NAME.tar, replacing an
                  earlier image layout there (never a directory of anything else)
  --name NAME     image name: lower-case letters and digits, optionally joined by . _ __ or - (default endpoint-picker)
  --tag TAG       image tag (default: package.json version)
  --created TIME  RFC 3339 creation time to record (default: none, or SOURCE_DATE_EPOCH when set)
  -h, --help      print this text and exit`;

const TOOL = "package";
const values = parseCliArgs(TOOL, USAGE, {
  wasm: { type: "string", default: "build/higress.wasm" },
  out: { type: "string", default: "build/oci" },
  name: { type: "string", default: "endpoint-picker" },
  tag: { type: "string" },
  created: { type: "string" },
});

/** RFC 3339 date-time (the image spec's `created`): full date, time, optional fraction, Z or an offset. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string; description?: string; license?: string };
const name = values.name;
const tag = values.tag ?? pkg.version;
const problem = imageNameProblem(name, tag);
if (problem) usageError(TOOL, `--${problem.startsWith("image name") ? "name" : "tag"}: ${problem}`);

let created = values.created;
if (created !== undefined && !(RFC3339.test(created) && !Number.isNaN(Date.parse(created)))) {
  usageError(TOOL, `--created must be an RFC 3339 time such as 2025-01-31T12:00:00Z, got "${created}"`);
}
const epoch = process.env.SOURCE_DATE_EPOCH;
if (created === undefined && epoch) {
  // reproducible-builds.org: SOURCE_DATE_EPOCH is a decimal count of seconds since the Unix epoch.
  if (!/^\d+$/.test(epoch) || !Number.isFinite(new Date(Number(epoch) * 1000).getTime())) {
    usageError(TOOL, `SOURCE_DATE_EPOCH must be whole seconds since 1970, got "${epoch}"`);
  }
  created = new Date(Number(epoch) * 1000).toISOString();
}

const wasmFile = values.wasm;
let wasm: Uint8Array;
try {
  wasm = readFileSync(wasmFile);
} catch (e) {
  usageError(TOOL, `cannot read ${wasmFile} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})${values.wasm === "build/higress.wasm" ? "; run npm run build first" : ""}`);
}
if (!WASM_MAGIC.every((b, i) => wasm[i] === b)) usageError(TOOL, `${wasmFile} is not a WebAssembly module (no \\0asm header)`);

let result;
try {
  result = packageWasmPlugin({ wasm, outDir: values.out, name, tag, description: pkg.description, licenses: pkg.license, created });
} catch (e) {
  const err = e as NodeJS.ErrnoException;
  // A refused or unwritable output directory is the user's to fix: one line, not a stack trace.
  if (err.code === undefined && !/not an OCI image layout/.test(err.message)) throw e;
  usageError(TOOL, err.message);
}
const { image, layoutDir, tarballPath } = result;
console.log(`packaged ${wasmFile} (${wasm.length} bytes) as ${layoutDir} and ${tarballPath}`);
console.log(`manifest ${image.manifest.digest}, layer ${image.layer.digest} (${image.layer.size} bytes)`);
