// Prefix hints shared by gateway replicas through Redis (one configuration's view). After an override the
// stream publishes which endpoint got the chain, when, and from which gateway (replica-hint-value.ts), at a few
// positions, as keys `<keyPrefix><chain hash>` with a TTL; a request that the worker's index and the cross-worker
// hints know too little of (picker/replica-decide.ts worthAskingRedis) asks for the same kind of positions of its
// own chain in one MGET. Chain hashes are seeded by the model and the tenant salt
// (prefix/chain.ts chainSeed), so tenants never share a key. Every call is one RESP command, one round trip.
// A failure of any kind backs off (doubling, capped) so a lost Redis costs one timeout now and then, not one
// per request.
import { HostResult, isOk } from "../abi/host";
import { Status } from "../abi/types";
import { RedisConfig } from "../config/redis-config";
import { RedisTransport } from "./redis-transport";
import { RedisTelemetry } from "./redis-telemetry";
import { RespReply, RespWriter } from "./resp";
import { MAX_LOOKUP_KEYS, MAX_PUBLISH_KEYS, lookupPositions, publishPositions } from "./replica-positions";
import { MAX_HINT_VALUE, ReplicaHintReader, writeReplicaHint } from "./replica-hint-value";
import { GatewayIdentity } from "./gateway-identity";
import { redisClusterWireName } from "./redis-cluster-name";

const BACKOFF_FIRST_MS: f64 = 100;
const BACKOFF_MAX_MS: f64 = 5000;
/** lookup() or publish() had nothing to send, or the command did not fit (a host refusal is -status). */
export const NOT_SENT: HostResult = -1;
/** The most of a reply the plugin reads: an MGET's MAX_LOOKUP_KEYS hint values with their framing, and some room.
 *  A longer reply (keys overwritten by something else) is read only this far, so it parses as garbage while an error
 *  reply is still told by its first bytes; read whole, it would grow the worker's linear memory by its size for good
 *  (past what the VM can grow to, a trap). */
export const MAX_REPLY_BYTES: u32 = 16 + <u32>MAX_LOOKUP_KEYS * (<u32>MAX_HINT_VALUE + 16);
// Keys get their TTL in the same command that writes them, so no key can outlive redis.ttlMs.
const PUBLISH_SCRIPT = "for i=1,#KEYS do redis.call('SET',KEYS[i],ARGV[1],'PX',ARGV[2]) end return #KEYS";
const MGET = "MGET";
const EVAL = "EVAL";

export class ReplicaHints {
  readonly cluster: ArrayBuffer;
  private readonly username: ArrayBuffer;
  private readonly password: ArrayBuffer;
  private readonly keyPrefix: ArrayBuffer;
  private readonly script: ArrayBuffer = String.UTF8.encode(PUBLISH_SCRIPT);
  private readonly mget: ArrayBuffer = String.UTF8.encode(MGET);
  private readonly eval: ArrayBuffer = String.UTF8.encode(EVAL);
  readonly timeoutMs: i32;
  private readonly ttlMs: i32;
  private readonly writer: RespWriter;
  readonly reply: RespReply = new RespReply(MAX_LOOKUP_KEYS);
  /** Reads the values of a lookup's reply (replica-hint-value.ts). */
  readonly value: ReplicaHintReader = new ReplicaHintReader();
  private readonly valueOut: usize = heap.alloc(<usize>MAX_HINT_VALUE);
  /** The positions of the last lookupPositions/publishPositions call. */
  readonly positions: StaticArray<i32> = new StaticArray<i32>(MAX_LOOKUP_KEYS);
  private readonly scratch: StaticArray<i32> = new StaticArray<i32>(8);
  private initialized: bool = false;
  private backoffUntil: f64 = 0;
  private backoffMs: f64 = BACKOFF_FIRST_MS;
  /** The time ready() was last asked at (calls follow it in the same callback). */
  private nowMs: f64 = 0;

  constructor(
    config: RedisConfig, readonly transport: RedisTransport, readonly telemetry: RedisTelemetry, readonly gateway: GatewayIdentity,
  ) {
    this.cluster = String.UTF8.encode(redisClusterWireName(config.cluster));
    this.username = String.UTF8.encode(config.username);
    this.password = String.UTF8.encode(config.password);
    this.keyPrefix = String.UTF8.encode(config.keyPrefix);
    this.timeoutMs = config.timeoutMs;
    this.ttlMs = config.ttlMs;
    const key = String.UTF8.byteLength(config.keyPrefix) + 16 + 16;
    this.writer = new RespWriter(256 + PUBLISH_SCRIPT.length + MAX_LOOKUP_KEYS * key + MAX_HINT_VALUE);
  }

  /** Whether a call may be made now; (re)connects the client when it is not. */
  ready(nowMs: f64): bool {
    this.nowMs = nowMs;
    if (nowMs < this.backoffEnd(nowMs)) {
      this.telemetry.count(this.telemetry.backoff);
      return false;
    }
    if (!this.initialized) {
      const s = this.transport.init(this.cluster, this.username, this.password, <u32>this.timeoutMs);
      if (s != Status.Ok) {
        this.telemetry.count(this.telemetry.initFailed);
        this.failed(nowMs);
        return false;
      }
      this.initialized = true;
    }
    return true;
  }

  /** Sends MGET of the chain's lookup positions: the call's token, or negative when nothing went out. */
  lookup(hashes: StaticArray<u64>, n: i32, previousEnd: i32 = 0): HostResult {
    const count = lookupPositions(n, this.scratch, this.positions, previousEnd);
    if (count == 0) return NOT_SENT;
    const w = this.writer;
    w.begin(1 + count);
    w.bulk(changetype<usize>(this.mget), this.mget.byteLength);
    this.writeKeys(hashes, count);
    const token = this.send();
    if (isOk(token)) this.telemetry.count(this.telemetry.lookups);
    return token;
  }

  /** Sends one EVAL that SETs the chain's publish positions to the hint (the endpoint's address, when it was
   *  published, when its request is expected to release its blocks) with the TTL: the call's token, or negative
   *  when nothing went out. */
  publish(hashes: StaticArray<u64>, n: i32, addrPtr: usize, addrLen: i32, publishedAtMs: f64, heldUntilMs: f64): HostResult {
    const valueLen = writeReplicaHint(this.valueOut, publishedAtMs, heldUntilMs, this.gateway.id(publishedAtMs), addrPtr, addrLen);
    if (valueLen == 0) return NOT_SENT;
    const count = publishPositions(n, this.scratch, this.positions);
    if (count == 0) return NOT_SENT;
    const w = this.writer;
    w.begin(3 + count + 2);
    w.bulk(changetype<usize>(this.eval), this.eval.byteLength);
    w.bulk(changetype<usize>(this.script), this.script.byteLength);
    w.bulkInt(count);
    this.writeKeys(hashes, count);
    w.bulk(this.valueOut, valueLen);
    w.bulkInt(this.ttlMs);
    const token = this.send();
    if (isOk(token)) this.telemetry.count(this.telemetry.publishes);
    return token;
  }

  /** The chunk count that lookup reply element i stands for (positions of a chain of n chunks). */
  lookupChunks(n: i32, i: i32, previousEnd: i32 = 0): i32 {
    const count = lookupPositions(n, this.scratch, this.positions, previousEnd);
    return i < count ? unchecked(this.positions[i]) + 1 : 0;
  }

  private writeKeys(hashes: StaticArray<u64>, count: i32): void {
    const w = this.writer;
    const prefix = changetype<usize>(this.keyPrefix);
    const prefixLen = this.keyPrefix.byteLength;
    for (let i = 0; i < count; i++) w.bulkKey(prefix, prefixLen, unchecked(hashes[unchecked(this.positions[i])]));
  }

  private send(): HostResult {
    const w = this.writer;
    if (w.overflow) return NOT_SENT;
    const token = this.transport.call(this.cluster, w.buf, <usize>w.len);
    if (!isOk(token)) {
      this.telemetry.count(this.telemetry.dispatchFailed);
      // The host may have lost the cluster: connect again after the back-off.
      this.initialized = false;
      this.failed(this.nowMs);
    }
    return token;
  }

  /** A call failed: no call goes out for a while, longer each time until one succeeds. */
  failed(nowMs: f64): void {
    this.backoffUntil = max(this.backoffEnd(nowMs), nowMs + this.backoffMs);
    this.backoffMs = min(this.backoffMs * 2, BACKOFF_MAX_MS);
  }

  /** When the back-off ends; forgotten when that is further ahead than any back-off reaches (the wall clock
   *  stepped back), or Redis would stay unused for as long as the step. */
  private backoffEnd(nowMs: f64): f64 {
    if (this.backoffUntil - nowMs > BACKOFF_MAX_MS) this.backoffUntil = 0;
    return this.backoffUntil;
  }

  succeeded(): void {
    this.backoffMs = BACKOFF_FIRST_MS;
  }

  /** A call whose callback reported a failure status, or given up: a timeout when it took the whole timeout (or
   *  the wall clock stepped back since it was sent, see PendingCalls.overdue). */
  callFailed(nowMs: f64, sentAtMs: f64): void {
    const t = this.telemetry;
    const waited = nowMs - sentAtMs;
    t.count(waited >= <f64>this.timeoutMs * 0.9 || waited < 0 ? t.timeout : t.unavailable);
    this.failed(nowMs);
  }
}
