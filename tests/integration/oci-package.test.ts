// The OCI packager: index.json -> manifest -> config and layer, each blob named by the sha256 of its
// bytes, the media types Istio/Higress's fetcher accepts, plugin.wasm inside the gzip'd layer equal to
// the module, and a tarball holding the same layout (read by our own parser and by GNU tar when present).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import { packageWasmPlugin } from "../../src-host/package/oci.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { SeededRandom } from "../../src-host/util/seeded-random.ts";

const dec = new TextDecoder();

interface TarFile {
  name: string;
  type: string;
  mode: number;
  data: Uint8Array;
}

// An independent ustar reader: checks each header's checksum and magic, then collects entries.
function readTar(bytes: Uint8Array): TarFile[] {
  assert.equal(bytes.length % 512, 0, "tar length is a multiple of 512");
  const field = (h: Uint8Array, off: number, len: number) => dec.decode(h.subarray(off, off + len)).replace(/\0.*$/s, "");
  const octal = (h: Uint8Array, off: number, len: number) => parseInt(field(h, off, len).trim() || "0", 8);
  const out: TarFile[] = [];
  let off = 0;
  while (off + 512 <= bytes.length) {
    const h = bytes.subarray(off, off + 512);
    if (h.every((b) => b === 0)) {
      assert.ok(bytes.subarray(off).every((b) => b === 0), "only zero blocks after the end marker");
      assert.ok(bytes.length - off >= 1024, "archive ends with two zero blocks");
      return out;
    }
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
    assert.equal(octal(h, 148, 8), sum, `checksum of header at ${off}`);
    assert.equal(field(h, 257, 6), "ustar");
    const prefix = field(h, 345, 155);
    const name = (prefix ? prefix + "/" : "") + field(h, 0, 100);
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156]);
    off += 512;
    out.push({ name, type, mode: octal(h, 100, 8), data: Uint8Array.from(bytes.subarray(off, off + size)) });
    off += Math.ceil(size / 512) * 512;
  }
  assert.fail("tar has no end marker");
}

function sha256(bytes: Uint8Array): string {
  return "sha256:" + createHash("sha256").update(bytes).digest("hex");
}

function filesUnder(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), Uint8Array.from(readFileSync(p)));
    }
  };
  walk(dir);
  return out;
}

// A module-shaped payload whose length is not a multiple of the tar block size.
function fakeWasm(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  bytes.set([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  bytes.set(new SeededRandom(0x9e3779b9).bytes(length - 8), 8);
  return bytes;
}

function withTempDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "oci-test-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const length of [70_001, 4096]) {
  test(`layout for a ${length}-byte module: index -> manifest -> config and layer, digests and sizes`, () => {
    withTempDir((dir) => {
      const wasm = fakeWasm(length);
      const { layoutDir } = packageWasmPlugin({ wasm, outDir: dir, name: "endpoint-picker", tag: "1.2.3" });
      const files = filesUnder(layoutDir);
      const blob = (digest: string) => {
        assert.match(digest, /^sha256:[0-9a-f]{64}$/);
        const bytes = files.get(join("blobs", "sha256", digest.slice(7)));
        assert.ok(bytes, `blob ${digest} exists`);
        assert.equal(sha256(bytes), digest, "blob name is the sha256 of its bytes");
        return bytes;
      };
      const parse = (bytes: Uint8Array) => JSON.parse(dec.decode(bytes));

      assert.deepEqual(parse(files.get("oci-layout")!), { imageLayoutVersion: "1.0.0" });
      const index = parse(files.get("index.json")!);
      assert.equal(index.schemaVersion, 2);
      assert.equal(index.mediaType, "application/vnd.oci.image.index.v1+json");
      assert.equal(index.manifests.length, 1);
      const md = index.manifests[0];
      assert.equal(md.mediaType, "application/vnd.oci.image.manifest.v1+json");
      assert.equal(md.annotations["org.opencontainers.image.ref.name"], "1.2.3");
      const manifestBytes = blob(md.digest);
      assert.equal(manifestBytes.length, md.size);

      const manifest = parse(manifestBytes);
      assert.equal(manifest.schemaVersion, 2);
      assert.equal(manifest.mediaType, "application/vnd.oci.image.manifest.v1+json");
      assert.equal(manifest.annotations["module.wasm.image/variant"], "compat");
      assert.equal(manifest.annotations["org.opencontainers.image.title"], "endpoint-picker");
      assert.equal(manifest.annotations["org.opencontainers.image.version"], "1.2.3");
      assert.equal(manifest.config.mediaType, "application/vnd.oci.image.config.v1+json");
      const configBytes = blob(manifest.config.digest);
      assert.equal(configBytes.length, manifest.config.size);

      // Istio's fetcher takes the last layer and requires the OCI tar+gzip type for the compat variant.
      assert.equal(manifest.layers.length, 1);
      const layerDesc = manifest.layers[0];
      assert.equal(layerDesc.mediaType, "application/vnd.oci.image.layer.v1.tar+gzip");
      const layerBytes = blob(layerDesc.digest);
      assert.equal(layerBytes.length, layerDesc.size);
      const layerTar = gunzipSync(layerBytes);
      const entries = readTar(layerTar);
      assert.deepEqual(entries.map((e) => [e.name, e.type]), [["plugin.wasm", "0"]]);
      assert.deepEqual(entries[0].data, wasm);

      const config = parse(configBytes);
      assert.equal(config.rootfs.type, "layers");
      assert.deepEqual(config.rootfs.diff_ids, [sha256(layerTar)], "diff_id is the digest of the uncompressed layer");
      assert.equal(typeof config.architecture, "string");
      assert.equal(typeof config.os, "string");

      const referenced = new Set([md.digest, manifest.config.digest, layerDesc.digest].map((d: string) => join("blobs", "sha256", d.slice(7))));
      const blobs = [...files.keys()].filter((p) => p.startsWith("blobs"));
      assert.deepEqual(new Set(blobs), referenced, "no unreferenced blobs");
    });
  });
}

test("the tarball holds exactly the layout directory, with directory entries before their files", () => {
  withTempDir((dir) => {
    const { layoutDir, tarballPath } = packageWasmPlugin({ wasm: fakeWasm(12_345), outDir: dir, name: "endpoint-picker", tag: "t" });
    const files = filesUnder(layoutDir);
    const entries = readTar(readFileSync(tarballPath));
    const regular = entries.filter((e) => e.type === "0");
    assert.deepEqual(new Set(regular.map((e) => e.name)), new Set(files.keys()));
    for (const e of regular) assert.deepEqual(e.data, files.get(e.name), e.name);
    const seen = new Set<string>();
    for (const e of entries) {
      const parent = e.name.replace(/\/?[^/]+\/?$/, "");
      if (parent) assert.ok(seen.has(parent + "/"), `${parent}/ comes before ${e.name}`);
      seen.add(e.name);
    }
  });
});

test("GNU tar extracts the tarball to the same files", (t) => {
  if (spawnSync("tar", ["--version"]).status !== 0) return t.skip("tar is not installed");
  withTempDir((dir) => {
    const { layoutDir, tarballPath } = packageWasmPlugin({ wasm: fakeWasm(9_999), outDir: dir, name: "endpoint-picker", tag: "t" });
    const out = join(dir, "extracted");
    execFileSync("mkdir", [out]);
    execFileSync("tar", ["-xf", tarballPath, "-C", out]);
    assert.deepEqual(filesUnder(out), filesUnder(layoutDir));
  });
});

test("packaging is deterministic and a different module changes every digest up the chain", () => {
  withTempDir((dir) => {
    const a = packageWasmPlugin({ wasm: fakeWasm(5000), outDir: join(dir, "a"), name: "p", tag: "t" });
    const b = packageWasmPlugin({ wasm: fakeWasm(5000), outDir: join(dir, "b"), name: "p", tag: "t" });
    assert.deepEqual(readFileSync(a.tarballPath), readFileSync(b.tarballPath));
    const changed = fakeWasm(5000);
    changed[100] ^= 1;
    const c = packageWasmPlugin({ wasm: changed, outDir: join(dir, "c"), name: "p", tag: "t" });
    assert.notEqual(c.image.layer.digest, a.image.layer.digest);
    assert.notEqual(c.image.config.digest, a.image.config.digest);
    assert.notEqual(c.image.manifest.digest, a.image.manifest.digest);
  });
});

test("repackaging into the same directory leaves no stale blobs", () => {
  withTempDir((dir) => {
    packageWasmPlugin({ wasm: fakeWasm(3000), outDir: dir, name: "p", tag: "t" });
    const second = packageWasmPlugin({ wasm: fakeWasm(3001), outDir: dir, name: "p", tag: "t" });
    const blobs = [...filesUnder(second.layoutDir).keys()].filter((p) => p.startsWith("blobs"));
    assert.equal(blobs.length, 3);
  });
});

test("long names are split into the ustar prefix field and read back whole", async () => {
  const { ustarArchive } = await import("../../src-host/package/ustar.ts");
  const name = "a".repeat(60) + "/" + "b".repeat(60) + "/" + "c".repeat(90);
  const entries = readTar(ustarArchive([{ name, data: new Uint8Array([1, 2, 3]) }]));
  assert.equal(entries[0].name, name);
  assert.deepEqual(entries[0].data, new Uint8Array([1, 2, 3]));
  assert.throws(() => ustarArchive([{ name: "x".repeat(101) }]), /path too long/);
});

test("the CLI packages build/higress.wasm into the given directory", (t) => {
  const wasm = readBuiltPlugin("higress");
  withTempDir((dir) => {
    execFileSync(process.execPath, ["--import", "tsx", "src-host/package/cli.ts", "--out", dir, "--tag", "cli-test"], { stdio: "pipe" });
    const index = JSON.parse(readFileSync(join(dir, "endpoint-picker", "index.json"), "utf8"));
    const manifest = JSON.parse(readFileSync(join(dir, "endpoint-picker", "blobs", "sha256", index.manifests[0].digest.slice(7)), "utf8"));
    const layer = readFileSync(join(dir, "endpoint-picker", "blobs", "sha256", manifest.layers[0].digest.slice(7)));
    assert.deepEqual(readTar(gunzipSync(layer))[0].data, Uint8Array.from(wasm));
    assert.equal(index.manifests[0].annotations["org.opencontainers.image.ref.name"], "cli-test");
    t.diagnostic(`manifest ${index.manifests[0].digest}`);
  });
});

test("a name or tag outside the OCI grammar is refused before anything is written or removed", () => {
  withTempDir((dir) => {
    // `--name ../x` once made the packager replace <out>/../x: whatever directory that was went with it.
    const victim = join(dir, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "keep.txt"), "mine");
    const out = join(dir, "out");
    for (const [name, tag] of [["../victim", "t"], ["a/b", "t"], ["Upper", "t"], ["", "t"], ["p", "bad tag"], ["p", "-t"], ["p", "x".repeat(129)]]) {
      assert.throws(() => packageWasmPlugin({ wasm: fakeWasm(100), outDir: out, name, tag }), /image (name|tag) must be/, `${name}:${tag}`);
    }
    assert.equal(readFileSync(join(victim, "keep.txt"), "utf8"), "mine");
    assert.equal(existsSync(out), false);
  });
});

test("only an earlier image layout is replaced: a directory of something else under the name is left alone", () => {
  withTempDir((dir) => {
    const mine = join(dir, "p");
    mkdirSync(mine);
    writeFileSync(join(mine, "notes.txt"), "mine");
    assert.throws(() => packageWasmPlugin({ wasm: fakeWasm(100), outDir: dir, name: "p", tag: "t" }), /exists and is not an OCI image layout/);
    assert.equal(readFileSync(join(mine, "notes.txt"), "utf8"), "mine");
    writeFileSync(join(dir, "f"), "a file");
    assert.throws(() => packageWasmPlugin({ wasm: fakeWasm(100), outDir: dir, name: "f", tag: "t" }), /exists and is not an OCI image layout/);
    assert.equal(readFileSync(join(dir, "f"), "utf8"), "a file");
  });
});
