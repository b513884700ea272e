// HTTP calls to clusters (proxy_http_call), their answer delivered to the root context, and the root
// context's status (proxy_get_status).
import { Status } from "../abi.ts";
import { toPairs } from "../header-map.ts";
import { deliveredResponse } from "../http-call.ts";
import type { HttpCallOutcome } from "../cluster.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function httpCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, hooks, ret } = scope;

  return {
    // cpp-host exports.cc http_call: the call belongs to the root context of the calling context, so the
    // answer comes to proxy_on_http_call_response on the root context whoever dispatched it. Envoy's
    // Context::httpCall (context.cc): a negative timeout, an unknown cluster, or headers without :path,
    // :method and :authority are BadArgument; a timeout of 0 means no timeout. Malformed header or trailer
    // maps read as empty (PairsUtil::toPairs): no headers fail that check, no trailers are just none.
    "env.proxy_http_call": (
      uPtr: number, uLen: number, hPtr: number, hLen: number, bPtr: number, bLen: number,
      tPtr: number, tLen: number, timeoutMs: number, retId: number,
    ) => {
      const clusterName = mem().readString(uPtr, uLen);
      const headers = toPairs(mem().read(hPtr, hLen));
      const trailers = toPairs(mem().read(tPtr, tLen));
      const body = mem().read(bPtr, bLen);
      mem().writeU32(retId, 0);
      if ((timeoutMs | 0) < 0) return Status.BadArgument;
      const cluster = vm.options.clusters.get(clusterName);
      if (!cluster || !cluster.dispatch) return Status.BadArgument;
      const names = new Set(headers.map(([k]) => k.toLowerCase()));
      if (!names.has(":authority") || !names.has(":method") || !names.has(":path")) return Status.BadArgument;
      const rootId = vm.rootOf(vm.effectiveContextId);
      if (rootId === null) return Status.BadArgument;
      const deliver = (callId: number, outcome: HttpCallOutcome | "timeout") => {
        if (vm.finishHttpCall(callId) === null) return;
        const root = vm.roots.get(rootId);
        if (!root) return;
        const res = deliveredResponse(outcome);
        vm.httpCallResponse = res;
        vm.httpCallResponseRoot = rootId;
        if (res === null) {
          // context.cc Context::onHttpCallFailure.
          root.statusCode = Status.BrokenConnection;
          root.statusMessage = "reset";
        }
        try {
          hooks().httpCallResponse(rootId, callId, res ? res.headers.length : 0, res ? res.body.length : 0, res ? res.trailers.length : 0);
        } finally {
          vm.httpCallResponse = null;
          root.statusMessage = "";
        }
      };
      const callId = vm.registerHttpCall(rootId, timeoutMs >>> 0, (id) => deliver(id, "timeout"));
      mem().writeU32(retId, callId);
      // Envoy answers on a later event-loop turn, never inside the call that dispatched it.
      cluster.dispatch({ headers, body, trailers, timeoutMs: timeoutMs >>> 0 }, (outcome) => {
        vm.options.clock.after(0, () => deliver(callId, outcome));
      });
      return Status.Ok;
    },
    // cpp-host exports.cc get_status: the root context's status_code_ and status_message_ — not an HTTP
    // status. 0 unless an HTTP or (Higress) Redis call failed (Context::onHttpCallFailure,
    // Context::onRedisCallFailure), and it stays BrokenConnection after that; the message is "reset" only
    // during the failed call's callback.
    "env.proxy_get_status": (retCode: number, retMsgPtr: number, retMsgLen: number) => {
      const root = vm.roots.get(vm.rootOf(vm.effectiveContextId) ?? -1);
      mem().writeU32(retCode, root ? root.statusCode : 0);
      return ret(retMsgPtr, retMsgLen, root ? root.statusMessage : "");
    },
  };
}
