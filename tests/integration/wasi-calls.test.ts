// The WASI functions as proxy-wasm-cpp-host (src/exports.cc) answers them for Envoy: fd_fdstat_get describes stdout and
// stderr, fd_seek and fd_close succeed doing nothing, fd_prestat_dir_name is not implemented, random_get is bounded and
// checks its buffer, and an empty fd_write logs nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFixture } from "../support/compile.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";

async function wasiHost() {
  const logs: string[] = [];
  const host = PluginHost.create({ wasm: await compileFixture("tests/guest/wasi-calls-plugin.ts"), flavor: "envoy", pluginConfig: "{}", log: (_l, m) => logs.push(m) });
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
