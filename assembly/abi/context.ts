// Root (plugin) and HTTP stream contexts, dispatched by context id as the host creates them
// (spec "Context lifecycle": a parent id of 0 creates a root context, otherwise a stream of that root).
import { HeadersAction, DataAction } from "./types";
import { StreamTable } from "./stream-table";
import { collectionOwed } from "./gc";

export class RootContext {
  constructor(readonly id: u32) {}
  onVmStart(configSize: u32): bool { return true; }
  onConfigure(configSize: u32): bool { return true; }
  onTick(): void {}
  onHttpCallResponse(callId: u32, numHeaders: u32, bodySize: u32, numTrailers: u32): void {}
  onQueueReady(queueId: u32): void {}
  /** Higress: the reply (or failure) of a proxy_redis_call. */
  onRedisCallResponse(token: u32, status: u32, responseSize: u32): void {}
  onDone(): bool { return true; }
  onLog(): void {}
  onDelete(): void {}
  /** Creates the context for a new HTTP stream of this plugin (or reuses one recycleHttpContext kept). */
  createHttpContext(id: u32): HttpContext { return new HttpContext(id, this); }
  /** One of this root's streams ended (the host will not name its id again): the root may keep it for reuseFor. */
  recycleHttpContext(stream: HttpContext): void {}
}

export class HttpContext {
  /** The stream reached the filter (its request headers came); set by the ABI layer. */
  reachedFilter: bool = false;
  /** The host's context id; another one only when the object is reused for a new stream (reuseFor). */
  id: u32;
  constructor(id: u32, readonly root: RootContext) {
    this.id = id;
  }
  /** Makes an ended stream the context of a new one: every field as a new object of its class has it. A subclass
   *  with fields of its own resets them in its override, after calling this. */
  reuseFor(id: u32): void {
    this.id = id;
    this.reachedFilter = false;
  }
  onRequestHeaders(numHeaders: u32, endOfStream: bool): i32 { return HeadersAction.Continue; }
  onRequestBody(bodySize: u32, endOfStream: bool): i32 { return DataAction.Continue; }
  onRequestTrailers(numTrailers: u32): i32 { return HeadersAction.Continue; }
  onResponseHeaders(numHeaders: u32, endOfStream: bool): i32 { return HeadersAction.Continue; }
  onResponseBody(bodySize: u32, endOfStream: bool): i32 { return DataAction.Continue; }
  onResponseTrailers(numTrailers: u32): i32 { return HeadersAction.Continue; }
  onLog(): void {}
  onDone(): bool { return true; }
  onDelete(): void {}
}

type RootFactory = (id: u32) => RootContext;

// Process-wide on purpose: set once by the entry file, before the host creates any context.
let rootFactory: RootFactory = (id: u32): RootContext => new RootContext(id);
const roots = new Map<u32, RootContext>();
const streams = new StreamTable<HttpContext>();
/** The root that created the last stream: a worker's streams nearly all have the same parent. */
let lastParent: RootContext | null = null;

/** Called once by the entry file to install the plugin's root context. */
export function setRootContextFactory(factory: RootFactory): void {
  rootFactory = factory;
}

export function createContext(id: u32, parentId: u32): void {
  if (parentId == 0) {
    if (lastParent !== null && lastParent!.id == id) lastParent = null;
    roots.set(id, rootFactory(id));
    return;
  }
  let parent = lastParent;
  if (parent === null || parent.id != parentId) {
    if (!roots.has(parentId)) return;
    parent = roots.get(parentId);
    lastParent = parent;
  }
  streams.set(id, parent.createHttpContext(id));
}

export function rootById(id: u32): RootContext | null {
  return roots.has(id) ? roots.get(id) : null;
}

export function streamById(id: u32): HttpContext | null {
  return streams.get(id);
}

/** Forgets the context; a stream goes back to its root, which may reuse it. */
export function deleteContext(id: u32): void {
  const stream = streams.take(id);
  if (stream !== null) {
    stream.root.recycleHttpContext(stream);
    return;
  }
  if (roots.has(id)) {
    roots.delete(id);
    collectionOwed();
    if (lastParent !== null && lastParent!.id == id) lastParent = null;
  }
}
