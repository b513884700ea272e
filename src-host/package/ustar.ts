// A minimal POSIX ustar writer: regular files and directories, fixed owner and mtime, so the same
// input always gives the same bytes (image digests must be reproducible).
const BLOCK = 512;
const enc = new TextEncoder();

export interface UstarEntry {
  /** Path inside the archive; directories end with "/". */
  name: string;
  /** File contents; omitted for directories. */
  data?: Uint8Array;
  /** Permission bits; default 0o644 for files, 0o755 for directories. */
  mode?: number;
  /** Seconds since the epoch; default 0. */
  mtime?: number;
}

function writeString(header: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = enc.encode(value);
  if (bytes.length > length) throw new Error(`ustar: "${value}" does not fit in ${length} bytes`);
  header.set(bytes, offset);
}

// Numeric fields are zero-padded octal followed by a NUL, filling the field.
function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`ustar: ${value} does not fit in a ${length}-byte field`);
  writeString(header, offset, length - 1, digits.padStart(length - 1, "0"));
}

// Names up to 100 bytes go in `name`; longer ones are split at a "/" into `prefix` (155) and `name` (100).
function splitName(name: string): { prefix: string; name: string } {
  if (enc.encode(name).length <= 100) return { prefix: "", name };
  for (let i = name.lastIndexOf("/", name.length - 2); i > 0; i = name.lastIndexOf("/", i - 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (enc.encode(prefix).length <= 155 && enc.encode(rest).length <= 100) return { prefix, name: rest };
  }
  throw new Error(`ustar: path too long: ${name}`);
}

function header(entry: UstarEntry): Uint8Array {
  const isDir = entry.name.endsWith("/");
  if (isDir && entry.data) throw new Error(`ustar: directory ${entry.name} cannot have data`);
  const h = new Uint8Array(BLOCK);
  const { prefix, name } = splitName(entry.name);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, entry.mode ?? (isDir ? 0o755 : 0o644));
  writeOctal(h, 108, 8, 0); // uid
  writeOctal(h, 116, 8, 0); // gid
  writeOctal(h, 124, 12, isDir ? 0 : (entry.data?.length ?? 0));
  writeOctal(h, 136, 12, entry.mtime ?? 0);
  h.fill(0x20, 148, 156); // checksum is computed with its own field read as spaces
  h[156] = isDir ? 0x35 : 0x30; // '5' directory, '0' regular file
  writeString(h, 257, 6, "ustar"); // NUL-terminated magic
  writeString(h, 263, 2, "00");
  writeString(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  writeString(h, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

/** The archive bytes: each entry's header and data padded to 512 bytes, then two zero blocks. */
export function ustarArchive(entries: UstarEntry[]): Uint8Array {
  let total = 2 * BLOCK;
  for (const e of entries) total += BLOCK + Math.ceil((e.data?.length ?? 0) / BLOCK) * BLOCK;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const e of entries) {
    out.set(header(e), offset);
    offset += BLOCK;
    if (e.data) {
      out.set(e.data, offset);
      offset += Math.ceil(e.data.length / BLOCK) * BLOCK;
    }
  }
  return out;
}
