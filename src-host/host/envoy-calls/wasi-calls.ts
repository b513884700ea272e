// The WASI functions Envoy implements for modules built for wasm32-wasi (proxy-wasm-cpp-host src/exports.cc
// wasi_unstable_*, the same in Higress's fork): errno results, 21 (EFAULT) for a buffer outside memory. cpp-host
// (wasm.cc WasmBase::registerCallbacks, FOR_ALL_WASI_FUNCTIONS in exports.h) registers every one of them under both
// "wasi_unstable" and "wasi_snapshot_preview1", so a module importing any of them loads.
import { LogLevel } from "../abi.ts";
import { InvalidMemoryAccess } from "../guest-memory.ts";
import type { Fn, HostFunctions, ImportScope } from "./scope.ts";

const EBADF = 8;
const ENOTDIR = 20;
const EFAULT = 21;
const EINVAL = 28;
const ENOENT = 44;
const ENOSYS = 52;
const ENOTSUP = 58;
/** cpp-host include/proxy-wasm/limits.h PROXY_WASM_HOST_WASI_RANDOM_GET_MAX_SIZE_BYTES. */
const RANDOM_GET_MAX_BYTES = 64 * 1024;

const isStdio = (fd: number) => fd === 1 || fd === 2;

export function wasiCalls(scope: ImportScope): HostFunctions {
  const { vm, mem } = scope;

  /** Runs a write of the module's memory: a bad pointer is EFAULT (cpp-host setWord / setDatatype fail). */
  function store(write: () => void): boolean {
    try {
      write();
      return true;
    } catch (e) {
      if (e instanceof InvalidMemoryAccess) return false;
      throw e;
    }
  }

  /** writevImpl: what was written is logged (info for stdout, error for stderr) without a trailing newline; nothing
   *  written, nothing logged. Returns the errno and the bytes written. */
  function writev(fd: number, iovs: number, iovsLen: number): { errno: number; written: number } {
    if (!isStdio(fd)) return { errno: EBADF, written: 0 };
    let text = "";
    let total = 0;
    const view = mem();
    try {
      for (let i = 0; i < iovsLen >>> 0; i++) {
        const head = view.read(iovs + i * 8, 8);
        const dv = new DataView(head.buffer);
        const p = dv.getUint32(0, true);
        const l = dv.getUint32(4, true);
        if (l === 0) continue;
        text += view.readString(p, l);
        total += l;
      }
    } catch (e) {
      if (e instanceof InvalidMemoryAccess) return { errno: EFAULT, written: 0 };
      throw e;
    }
    if (total > 0) vm.options.log(fd === 1 ? LogLevel.Info : LogLevel.Error, text.replace(/\n$/, ""), vm);
    return { errno: 0, written: total };
  }

  /** fd_write and fd_pwrite: writevImpl, then the count (EFAULT if it cannot be stored). */
  const write = (fd: number, iovs: number, iovsLen: number, retWritten: number) => {
    const { errno, written } = writev(fd, iovs, iovsLen);
    if (errno !== 0) return errno;
    return store(() => mem().writeU32(retWritten, written)) ? 0 : EFAULT;
  };
  const stdioOnly = (fd: number) => (isStdio(fd) ? 0 : EBADF);
  const notSupported = () => ENOTSUP;

  const calls: Record<string, Fn> = {
    fd_write: write,
    // Since 2024-12 (cpp-host #427) reading any file is ENOSYS.
    fd_read: () => ENOSYS,
    // fd_seek and fd_close: ContextBase::error (Envoy's Context::error logs at trace) and success.
    fd_seek: () => 0,
    fd_close: () => 0,
    // stdout and stderr only: a zeroed fdstat whose fs_rights_base is __WASI_RIGHTS_FD_WRITE. cpp-host ignores
    // setMemory's result, so a buffer outside memory is written nowhere and still succeeds.
    fd_fdstat_get: (fd: number, statPtr: number) => {
      if (!isStdio(fd)) return EBADF;
      store(() => {
        const stat = mem().bytesAt(statPtr, 24);
        stat.fill(0);
        stat[8] = 64;
      });
      return 0;
    },
    fd_fdstat_set_flags: () => ENOSYS,
    fd_fdstat_set_rights: stdioOnly,
    fd_prestat_get: () => EBADF,
    fd_prestat_dir_name: () => ENOSYS,
    fd_filestat_get: () => EBADF,
    path_filestat_get: notSupported,
    path_open: () => ENOENT,
    // Envoy passes no environment to an HTTP filter's VM (vm_config.environment_variables unset): none, no writes.
    environ_sizes_get: (retCount: number, retSize: number) =>
      store(() => mem().writeU32(retCount, 0)) && store(() => mem().writeU32(retSize, 0)) ? 0 : EFAULT,
    environ_get: () => 0,
    args_sizes_get: (retArgc: number, retSize: number) =>
      store(() => mem().writeU32(retArgc, 0)) && store(() => mem().writeU32(retSize, 0)) ? 0 : EFAULT,
    args_get: () => 0,
    clock_time_get: (clockId: number, _precision: bigint, retPtr: number) => {
      // Realtime is getCurrentTimeNanoseconds, monotonic getMonotonicTimeNanoseconds.
      if (clockId !== 0 && clockId !== 1) return ENOTSUP;
      const clock = vm.options.clock;
      return store(() => mem().writeU64(retPtr, clockId === 0 ? clock.nowNs() : clock.monotonicNs())) ? 0 : EFAULT;
    },
    // A resolution of 1 ns for the realtime and monotonic clocks.
    clock_res_get: (clockId: number, retPtr: number) => {
      if (clockId !== 0 && clockId !== 1) return ENOTSUP;
      return store(() => mem().writeU64(retPtr, 1n)) ? 0 : EFAULT;
    },
    fd_advise: () => 0,
    fd_allocate: stdioOnly,
    fd_datasync: stdioOnly,
    fd_filestat_set_size: stdioOnly,
    fd_filestat_set_times: stdioOnly,
    fd_sync: stdioOnly,
    fd_pread: () => ENOSYS,
    fd_pwrite: (fd: number, iovs: number, iovsLen: number, _offset: bigint, retWritten: number) => write(fd, iovs, iovsLen, retWritten),
    fd_readdir: (_fd: number, _buf: number, _len: number, _cookie: bigint, retRead: number) =>
      store(() => mem().writeU32(retRead, 0)) ? ENOTDIR : EFAULT,
    fd_renumber: (fd: number, to: number) => (isStdio(fd) && isStdio(to) ? ENOTSUP : EBADF),
    fd_tell: (fd: number, retOffset: number) => {
      if (!isStdio(fd)) return EBADF;
      return store(() => mem().writeU64(retOffset, 0n)) ? 0 : EFAULT;
    },
    path_create_directory: notSupported,
    path_filestat_set_times: notSupported,
    path_link: notSupported,
    path_readlink: (_fd: number, _p: number, _pl: number, _buf: number, _bl: number, retUsed: number) =>
      store(() => mem().writeU32(retUsed, 0)) ? ENOTSUP : EFAULT,
    path_remove_directory: notSupported,
    path_rename: notSupported,
    path_symlink: notSupported,
    path_unlink_file: notSupported,
    // Upstream writes the returned fd as an unsigned long (8 bytes: setDatatype(retptr0, 0UL)), Higress's fork as a
    // uint32_t.
    sock_accept: (_fd: number, _flags: number, retFd: number) =>
      store(() => (vm.flavor === "higress" ? mem().writeU32(retFd, 0) : mem().writeU64(retFd, 0n))) ? ENOTSUP : EFAULT,
    sock_recv: (_fd: number, _ri: number, _riLen: number, _flags: number, retLen: number, retFlags: number) =>
      store(() => mem().writeU32(retLen, 0)) && store(() => mem().bytesAt(retFlags, 2).fill(0)) ? ENOTSUP : EFAULT,
    sock_send: (_fd: number, _si: number, _siLen: number, _flags: number, retLen: number) =>
      store(() => mem().writeU32(retLen, 0)) ? ENOTSUP : EFAULT,
    sock_shutdown: notSupported,
    random_get: (ptr: number, len: number) => {
      len >>>= 0;
      if (len > RANDOM_GET_MAX_BYTES) return EINVAL;
      if (len === 0) return 0;
      let target: Uint8Array;
      try {
        target = mem().bytesAt(ptr, len);
      } catch (e) {
        if (e instanceof InvalidMemoryAccess) return EFAULT;
        throw e;
      }
      crypto.getRandomValues(target);
      return 0;
    },
    sched_yield: () => 0,
    // Since 2026-04 (cpp-host #533; Go's wasip1 runtime needs it): no event, nevents 0, success.
    poll_oneoff: (_in: number, _out: number, _n: number, retEvents: number) => (store(() => mem().writeU32(retEvents, 0)) ? 0 : EFAULT),
    // Envoy logs proc_exit and carries on; it must not unwind the host.
    proc_exit: (code: number) => {
      vm.options.log(LogLevel.Warn, `proc_exit(${code}) ignored`, vm);
    },
  };
  const out: HostFunctions = {};
  for (const [name, fn] of Object.entries(calls)) {
    out[`wasi_snapshot_preview1.${name}`] = fn;
    out[`wasi_unstable.${name}`] = fn;
  }
  return out;
}
