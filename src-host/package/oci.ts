// Packages a proxy-wasm module as an OCI image layout (directory and tarball) that Higress and Istio
// can pull from a registry: one tar+gzip layer with plugin.wasm, an image config, a manifest and the
// layout's index.json. Output is deterministic: the same module and options give the same digests.
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import {
  ANNOTATION_CREATED, ANNOTATION_DESCRIPTION, ANNOTATION_LICENSES, ANNOTATION_REF_NAME, ANNOTATION_TITLE,
  ANNOTATION_VERSION, OCI_IMAGE_CONFIG, OCI_IMAGE_INDEX, OCI_IMAGE_MANIFEST, OCI_LAYER_TAR_GZIP, WASM_PLUGIN_FILE,
  WASM_VARIANT_ANNOTATION, WASM_VARIANT_COMPAT,
} from "./oci-media-types.ts";
import { ustarArchive, type UstarEntry } from "./ustar.ts";

const enc = new TextEncoder();

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export interface WasmImageOptions {
  /** The module to publish. */
  wasm: Uint8Array;
  /** Image name, used as the title annotation and the layout directory name. */
  name: string;
  /** Tag recorded in index.json (org.opencontainers.image.ref.name) and the version annotation. */
  tag: string;
  description?: string;
  licenses?: string;
  /** RFC 3339 creation time; omitted by default so the digest depends only on the inputs. */
  created?: string;
}

/** An image layout held in memory: the files it consists of, by path relative to the layout root. */
export interface WasmImage {
  files: Map<string, Uint8Array>;
  manifest: Descriptor;
  config: Descriptor;
  layer: Descriptor;
}

export function sha256Digest(bytes: Uint8Array): string {
  return "sha256:" + createHash("sha256").update(bytes).digest("hex");
}

export function blobPath(digest: string): string {
  const [algorithm, hex] = digest.split(":");
  return `blobs/${algorithm}/${hex}`;
}

function json(value: unknown): Uint8Array {
  return enc.encode(JSON.stringify(value));
}

/** Builds the layout files for one module. */
export function buildWasmImage(options: WasmImageOptions): WasmImage {
  const files = new Map<string, Uint8Array>();
  const addBlob = (mediaType: string, bytes: Uint8Array, annotations?: Record<string, string>): Descriptor => {
    const digest = sha256Digest(bytes);
    files.set(blobPath(digest), bytes);
    return annotations ? { mediaType, digest, size: bytes.length, annotations } : { mediaType, digest, size: bytes.length };
  };

  const layerTar = ustarArchive([{ name: WASM_PLUGIN_FILE, data: options.wasm }]);
  const layer = addBlob(OCI_LAYER_TAR_GZIP, gzipSync(layerTar, { level: 9 }));

  // The module runs on no OS; os/architecture follow Go's GOOS/GOARCH for Wasm, as the image spec suggests.
  const imageConfig: Record<string, unknown> = {
    architecture: "wasm",
    os: "wasip1",
    config: {},
    rootfs: { type: "layers", diff_ids: [sha256Digest(layerTar)] },
  };
  if (options.created) imageConfig.created = options.created;
  const config = addBlob(OCI_IMAGE_CONFIG, json(imageConfig));

  const annotations: Record<string, string> = {
    [WASM_VARIANT_ANNOTATION]: WASM_VARIANT_COMPAT,
    [ANNOTATION_TITLE]: options.name,
    [ANNOTATION_VERSION]: options.tag,
  };
  if (options.description) annotations[ANNOTATION_DESCRIPTION] = options.description;
  if (options.licenses) annotations[ANNOTATION_LICENSES] = options.licenses;
  if (options.created) annotations[ANNOTATION_CREATED] = options.created;
  const manifestDoc = { schemaVersion: 2, mediaType: OCI_IMAGE_MANIFEST, config, layers: [layer], annotations };
  const manifest = addBlob(OCI_IMAGE_MANIFEST, json(manifestDoc));

  const index = {
    schemaVersion: 2,
    mediaType: OCI_IMAGE_INDEX,
    manifests: [{ ...manifest, annotations: { [ANNOTATION_REF_NAME]: options.tag } }],
  };
  files.set("oci-layout", json({ imageLayoutVersion: "1.0.0" }));
  files.set("index.json", json(index));
  return { files, manifest, config, layer };
}

/** The layout as a tar archive (for `skopeo copy oci-archive:` or `docker load`-free transfer). */
export function layoutTarball(image: WasmImage): Uint8Array {
  const paths = [...image.files.keys()].sort();
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let d = dirname(p); d !== "."; d = dirname(d)) dirs.add(d + "/");
  }
  const entries: UstarEntry[] = [...dirs].sort().map((name) => ({ name }));
  for (const p of paths) entries.push({ name: p, data: image.files.get(p)! });
  return ustarArchive(entries);
}

export interface PackageResult {
  image: WasmImage;
  layoutDir: string;
  tarballPath: string;
}

/** One path component of a repository name, as the OCI distribution spec's name grammar has it. */
const NAME_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
/** The OCI distribution spec's tag grammar. */
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/** Why a name or tag cannot be used, or null. The name is also a directory name, so it is one component. */
export function imageNameProblem(name: string, tag: string): string | null {
  if (!NAME_COMPONENT.test(name)) return `image name must be lower-case letters and digits, optionally joined by '.', '_', '__' or '-', got "${name}"`;
  if (!TAG.test(tag)) return `image tag must be up to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-', got "${tag}"`;
  return null;
}

/** Writes <outDir>/<name>/ (replacing an older layout there, and nothing else) and <outDir>/<name>.tar. */
export function packageWasmPlugin(options: WasmImageOptions & { outDir: string }): PackageResult {
  const problem = imageNameProblem(options.name, options.tag);
  if (problem) throw new Error(problem);
  const image = buildWasmImage(options);
  const layoutDir = join(options.outDir, options.name);
  // Only an image layout is replaced: a directory of something else under that name is the user's.
  if (existsSync(layoutDir) && !(lstatSync(layoutDir).isDirectory() && existsSync(join(layoutDir, "oci-layout")))) {
    throw new Error(`${layoutDir} exists and is not an OCI image layout; not replacing it`);
  }
  rmSync(layoutDir, { recursive: true, force: true });
  for (const [path, bytes] of image.files) {
    const file = join(layoutDir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, bytes);
  }
  const tarballPath = join(options.outDir, `${options.name}.tar`);
  writeFileSync(tarballPath, layoutTarball(image));
  return { image, layoutDir, tarballPath };
}
