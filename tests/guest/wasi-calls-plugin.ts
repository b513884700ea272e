// A test plugin whose exports call WASI functions and return their errno (and what they wrote), for
// tests/integration/wasi-calls.test.ts.
export * from "../../assembly/abi/higress-abi-version";
export * from "../../assembly/abi/abi-version";
export * from "../../assembly/abi/exports";
import "../../assembly/abi/abort";
import { RootContext, setRootContextFactory } from "../../assembly/abi/context";

@external("wasi_snapshot_preview1", "fd_fdstat_get")
declare function fd_fdstat_get(fd: u32, stat: usize): u16;
@external("wasi_snapshot_preview1", "fd_seek")
declare function fd_seek(fd: u32, offset: i64, whence: u32, newOffset: usize): u16;
@external("wasi_snapshot_preview1", "fd_close")
declare function fd_close(fd: u32): u16;
@external("wasi_snapshot_preview1", "fd_prestat_dir_name")
declare function fd_prestat_dir_name(fd: u32, path: usize, len: usize): u16;
@external("wasi_snapshot_preview1", "random_get")
declare function random_get(buf: usize, len: usize): u16;
@external("wasi_snapshot_preview1", "fd_write")
declare function fd_write(fd: u32, iovs: usize, iovsLen: usize, written: usize): u16;
@external("wasi_snapshot_preview1", "fd_read")
declare function fd_read(fd: u32, iovs: usize, iovsLen: usize, read: usize): u16;
@external("wasi_snapshot_preview1", "poll_oneoff")
declare function poll_oneoff(subscriptions: usize, events: usize, count: usize, nevents: usize): u16;
@external("wasi_snapshot_preview1", "clock_time_get")
declare function clock_time_get(clock: u32, precision: u64, time: usize): u16;
@external("wasi_unstable", "clock_res_get")
declare function clock_res_get(clock: u32, resolution: usize): u16;

const scratch = new StaticArray<u64>(8);

/** fd_fdstat_get's errno, then the fs_rights_base it wrote in the low bits (errno | rights << 8). */
export function wasi_fdstat(fd: u32): u64 {
  const p = changetype<usize>(scratch);
  store<u64>(p, 0xffff);
  store<u64>(p + 8, 0xffff);
  const errno = fd_fdstat_get(fd, p);
  return <u64>errno | (load<u64>(p + 8) << 8);
}
export function wasi_seek_close(): u32 {
  return (<u32>fd_seek(1, 0, 0, changetype<usize>(scratch)) << 16) | <u32>fd_close(1);
}
export function wasi_prestat_dir_name(): u32 {
  return fd_prestat_dir_name(3, changetype<usize>(scratch), 8);
}
export function wasi_random(ptr: usize, len: usize): u32 {
  return random_get(ptr, len);
}
/** fd_write of one empty iovec to stdout: its errno. */
export function wasi_write_empty(): u32 {
  const p = changetype<usize>(scratch);
  store<u32>(p, <u32>p + 32);
  store<u32>(p + 4, 0);
  return fd_write(1, p, 1, p + 16);
}

/** fd_read of stdin into one 8-byte iovec: its errno. */
export function wasi_read(): u32 {
  const p = changetype<usize>(scratch);
  store<u32>(p, <u32>p + 32);
  store<u32>(p + 4, 8);
  return fd_read(0, p, 1, p + 16);
}
/** poll_oneoff of one (unread) subscription, nevents preset to 0xffff: errno | nevents << 16. */
export function wasi_poll(): u32 {
  const p = changetype<usize>(scratch);
  store<u32>(p + 56, 0xffff);
  return <u32>poll_oneoff(p, p + 16, 1, p + 56) | (load<u32>(p + 56) << 16);
}
/** clock_time_get's time in microseconds (exact in a JS number), or -1 when it fails. */
export function wasi_clock_time_us(clock: u32): i64 {
  const p = changetype<usize>(scratch);
  return clock_time_get(clock, 1, p) == 0 ? <i64>(load<u64>(p) / 1000) : -1;
}
/** fd_fdstat_get of stdout into a buffer at ptr: its errno. */
export function wasi_fdstat_at(ptr: usize): u32 {
  return fd_fdstat_get(1, ptr);
}
/** clock_res_get (imported from wasi_unstable): errno | resolution << 16. */
export function wasi_clock_res(clock: u32): u64 {
  const p = changetype<usize>(scratch);
  store<u64>(p, 0xffff);
  return <u64>clock_res_get(clock, p) | (load<u64>(p) << 16);
}

setRootContextFactory((id: u32): RootContext => new RootContext(id));
