// The WASI functions as proxy-wasm-cpp-host (src/exports.cc) answers them for Envoy: fd_fdstat_get describes stdout and
// stderr, fd_seek and fd_close succeed doing nothing, fd_prestat_dir_name is not implemented, random_get is bounded and
// checks its buffer, and an empty fd_write logs nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFixture } from "../support/compile.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { MissingImportsError } from "../../src-host/host/vm.ts";
import binaryen from "binaryen";
import { SteppedWallClock } from "../support/stepped-clock.ts";

async function wasiHost(clock = new SteppedWallClock()) {
  const logs: string[] = [];
  const host = PluginHost.create({ wasm: await compileFixture("tests/guest/wasi-calls-plugin.ts"), flavor: "envoy", pluginConfig: "{}", clock, log: (_l, m) => logs.push(m) });
  const worker = host.workers[0];
  const call = (name: string, args: Array<number | bigint> = []) => worker.vm.call(name, args, worker.rootContextId);
  return { call, logs };
}

test("fd_fdstat_get: stdout and stderr are there with the write right (exports.cc wasi_unstable_fd_fdstat_get), other descriptors EBADF", async () => {
  const { call } = await wasiHost();
  const WRITE_RIGHT = 64n;
  assert.equal(BigInt.asUintN(64, BigInt(call("wasi_fdstat", [1]))), WRITE_RIGHT << 8n);
  assert.equal(BigInt.asUintN(64, BigInt(call("wasi_fdstat", [2]))), WRITE_RIGHT << 8n);
  assert.equal(BigInt.asUintN(64, BigInt(call("wasi_fdstat", [3]))) & 0xffn, 8n);
});

test("fd_fdstat_get into a buffer outside memory writes nothing and still succeeds (exports.cc wasi_unstable_fd_fdstat_get ignores setMemory's result)", async () => {
  const { call } = await wasiHost();
  assert.equal(call("wasi_fdstat_at", [0xfffffff0]), 0);
});

test("clock_time_get: realtime is the wall clock, monotonic a steady clock that a step of the wall clock does not move (exports.cc wasi_unstable_clock_time_get: getCurrentTimeNanoseconds, getMonotonicTimeNanoseconds), others ENOTSUP", async () => {
  const clock = new SteppedWallClock();
  const { call } = await wasiHost(clock);
  const readUs = (id: number) => Number(call("wasi_clock_time_us", [id]));
  const [wall0, steady0] = [readUs(0), readUs(1)];
  assert.equal(wall0, Number(clock.nowNs() / 1000n));
  clock.pass(250);
  clock.offsetMs = -3_600_000;
  assert.equal(readUs(0) - wall0, (250 - 3_600_000) * 1000);
  assert.equal(readUs(1) - steady0, 250 * 1000);
  assert.equal(readUs(2), -1);
});

test("fd_seek and fd_close succeed without doing anything, fd_prestat_dir_name is ENOSYS (exports.cc wasi_unstable_fd_seek, fd_close, fd_prestat_dir_name)", async () => {
  const { call } = await wasiHost();
  assert.equal(call("wasi_seek_close"), 0);
  assert.equal(call("wasi_prestat_dir_name"), 52);
});

test("random_get: a zero length succeeds, more than 64 KiB is EINVAL, a buffer outside memory EFAULT (exports.cc wasi_unstable_random_get, limits.h PROXY_WASM_HOST_WASI_RANDOM_GET_MAX_SIZE_BYTES)", async () => {
  const { call } = await wasiHost();
  assert.equal(call("wasi_random", [0, 0]), 0);
  assert.equal(call("wasi_random", [1024, 16]), 0);
  assert.equal(call("wasi_random", [1024, 64 * 1024 + 1]), 28);
  assert.equal(call("wasi_random", [0xfffffff0, 64]), 21);
});

test("fd_write of nothing succeeds and logs nothing (exports.cc writevImpl logs only what was written)", async () => {
  const { call, logs } = await wasiHost();
  const before = logs.length;
  assert.equal(call("wasi_write_empty"), 0);
  assert.equal(logs.length, before);
});

test("fd_read is ENOSYS and poll_oneoff succeeds with no event (exports.cc wasi_unstable_fd_read since cpp-host #427, wasi_unstable_poll_oneoff since #533)", async () => {
  const { call } = await wasiHost();
  assert.equal(call("wasi_read"), 52);
  assert.equal(call("wasi_poll"), 0);
});

test("the wasi_unstable names are linked too: clock_res_get gives 1 ns for realtime and monotonic, ENOTSUP otherwise (exports.cc wasi_unstable_clock_res_get)", async () => {
  const { call } = await wasiHost();
  assert.equal(BigInt.asUintN(64, BigInt(call("wasi_clock_res", [0]))), 1n << 16n);
  assert.equal(BigInt.asUintN(64, BigInt(call("wasi_clock_res", [1]))), 1n << 16n);
  assert.equal(BigInt.asUintN(64, BigInt(call("wasi_clock_res", [2]))) & 0xffffn, 58n);
});

// cpp-host include/proxy-wasm/exports.h FOR_ALL_WASI_FUNCTIONS, registered under both module names (wasm.cc
// WasmBase::registerCallbacks, _REGISTER_WASI_UNSTABLE and _REGISTER_WASI_SNAPSHOT).
const CPP_HOST_WASI = [
  "fd_write", "fd_read", "fd_seek", "fd_close", "fd_fdstat_get", "fd_fdstat_set_flags", "fd_fdstat_set_rights", "environ_get",
  "environ_sizes_get", "args_get", "args_sizes_get", "clock_time_get", "clock_res_get", "fd_advise", "fd_allocate", "fd_datasync",
  "fd_filestat_set_size", "fd_filestat_set_times", "fd_pread", "fd_pwrite", "fd_readdir", "fd_renumber", "fd_sync", "fd_tell",
  "path_create_directory", "path_filestat_set_times", "path_link", "path_readlink", "path_remove_directory", "path_rename",
  "path_symlink", "path_unlink_file", "sock_accept", "sock_recv", "sock_send", "sock_shutdown", "random_get", "sched_yield",
  "poll_oneoff", "proc_exit", "path_open", "fd_prestat_get", "fd_prestat_dir_name", "path_filestat_get", "fd_filestat_get",
];

for (const flavor of ["envoy", "higress"] as const) {
  test(`a module importing every WASI function cpp-host links, under either module name, finds them all (${flavor})`, () => {
    const m = new binaryen.Module();
    for (const mod of ["wasi_snapshot_preview1", "wasi_unstable"]) {
      for (const name of CPP_HOST_WASI) m.addFunctionImport(`${mod}.${name}`, mod, name, binaryen.none, binaryen.none);
    }
    const mark = flavor === "higress" ? "proxy_abi_version_0_2_100" : "proxy_abi_version_0_2_1";
    m.addFunction(mark, binaryen.none, binaryen.none, [], m.nop());
    m.addFunctionExport(mark, mark);
    const wasm = m.emitBinary();
    m.dispose();
    let error: unknown = null;
    try {
      PluginHost.create({ wasm, flavor, pluginConfig: "{}" });
    } catch (e) {
      error = e;
    }
    // It gets past linking; it then fails for want of memory and malloc.
    assert.ok(!(error instanceof MissingImportsError), String(error));
    assert.match(String(error), /must export memory and malloc/);
  });
}
