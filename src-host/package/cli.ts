// Packages build/higress.wasm as an OCI image layout: tsx src-host/package/cli.ts [--wasm F] [--out DIR] [--name N] [--tag T]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { packageWasmPlugin } from "./oci.ts";

const USAGE = `usage: tsx src-host/package/cli.ts [options]
  --wasm FILE     module to package (default build/higress.wasm)
  --out DIR       output directory (default build/oci); writes DIR/NAME/ and DIR/NAME.tar
  --name NAME     image name (default endpoint-picker)
  --tag TAG       image tag (default: package.json version)
  --created TIME  RFC 3339 creation time to record (default: none, or SOURCE_DATE_EPOCH when set)`;

const { values } = parseArgs({
  options: {
    wasm: { type: "string" }, out: { type: "string" }, name: { type: "string" }, tag: { type: "string" },
    created: { type: "string" }, help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string; description?: string; license?: string };
const wasmFile = values.wasm ?? "build/higress.wasm";
let wasm: Uint8Array;
try {
  wasm = readFileSync(wasmFile);
} catch {
  console.error(`cannot read ${wasmFile}; run \`npm run build\` first\n${USAGE}`);
  process.exit(2);
}
const epoch = process.env.SOURCE_DATE_EPOCH;
const created = values.created ?? (epoch ? new Date(Number(epoch) * 1000).toISOString() : undefined);

const { image, layoutDir, tarballPath } = packageWasmPlugin({
  wasm,
  outDir: values.out ?? "build/oci",
  name: values.name ?? "endpoint-picker",
  tag: values.tag ?? pkg.version,
  description: pkg.description,
  licenses: pkg.license,
  created,
});
console.log(`packaged ${wasmFile} (${wasm.length} bytes) as ${layoutDir} and ${tarballPath}`);
console.log(`manifest ${image.manifest.digest}, layer ${image.layer.digest} (${image.layer.size} bytes)`);
