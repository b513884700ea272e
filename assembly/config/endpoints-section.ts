// The `endpoints` key: the stock Envoy build's list of endpoints; the Higress build ignores it with a warning.
import { JsonToken } from "../json/scanner";
import { EndpointConfig, PickerConfig } from "./picker-config";
import { ParseContext, childPath } from "./parse-context";
import { addressKey, addressProblem, envoyAddressName, isHostNameAddress } from "./endpoint-address";
import { isAuthority, isClusterName, isHttpPath } from "./string-formats";
import { currentString, printable } from "./scanner-values";
import { suggestionAmong } from "./key-suggestion";

/** The keys of one endpoint object, indexed by EndpointKey: the parser and the unknown-key suggestion read this list. */
const ENDPOINT_KEYS: Array<string> = ["address", "metricsCluster", "metricsPath", "authority"];

/** A key's index in ENDPOINT_KEYS. */
enum EndpointKey {
  Address = 0,
  MetricsCluster = 1,
  MetricsPath = 2,
  Authority = 3,
}

/**
 * Parses the value of `endpoints` (the current token) at the displayed path. The stock build stores the
 * endpoints in out.endpoints and, per endpoint, whether it set its own metricsPath in explicitMetricsPath.
 * Returns false if the document is not valid JSON.
 */
export function parseEndpoints(
  ctx: ParseContext,
  path: string,
  isStockEnvoy: bool,
  out: PickerConfig,
  explicitMetricsPath: Array<bool>,
): bool {
  const sc = ctx.sc;
  if (sc.token != JsonToken.ArrStart) {
    ctx.wrongValue(path, "an array of endpoint objects");
    return ctx.skipValue();
  }
  const endpoints = new Array<EndpointConfig>();
  explicitMetricsPath.length = 0;
  const firstIndexOfAddress = new Map<string, i32>();
  let count = 0;
  while (true) {
    const t = sc.next();
    if (t == JsonToken.ArrEnd) break;
    if (t >= JsonToken.End) return false;
    const at = path + "[" + count.toString() + "]";
    count++;
    if (!isStockEnvoy) {
      if (!ctx.skipValue()) return false;
      continue;
    }
    if (t != JsonToken.ObjStart) {
      ctx.wrongValue(at, "an endpoint object");
      if (!ctx.skipValue()) return false;
      continue;
    }
    const e = new EndpointConfig();
    const explicit = new Array<bool>(1);
    if (!parseEndpoint(ctx, at, e, explicit)) return false;
    if (e.address.length != 0) {
      const key = addressKey(e.address);
      if (firstIndexOfAddress.has(key)) {
        const first = firstIndexOfAddress.get(key);
        ctx.error(at + ".address", "duplicate of " + path + "[" + first.toString() + "].address \"" + printable(e.address) + "\"");
      } else {
        firstIndexOfAddress.set(key, endpoints.length);
      }
    }
    // Envoy's override_host policy looks the header's value up among the cluster's hosts by their address as
    // ip:port (load_balancer.cc findHost, crossPriorityHostMap keyed by address()->asString()); a DNS cluster's hosts
    // are its resolved IPs, so a host name never matches and every request goes to the fallback policy.
    if (isHostNameAddress(e.address)) {
      out.warnings.push(
        at + ".address: \"" + printable(e.address) + "\" is a host name: Envoy's override_host policy matches hosts by " +
          "ip:port only, so requests the plugin sends there go to the fallback policy",
      );
    }
    endpoints.push(e);
    explicitMetricsPath.push(explicit[0]);
  }
  if (isStockEnvoy) {
    out.endpoints = endpoints;
  } else if (count > 0) {
    out.warnings.push(
      path + ": ignored by the Higress build, which takes the hosts from the gateway (" + count.toString() + " given)",
    );
  }
  return true;
}

// Parses one endpoint object (current token ObjStart) into e; explicitMetricsPath[0] tells whether it set
// metricsPath. Returns false if the document is not valid JSON.
function parseEndpoint(ctx: ParseContext, at: string, e: EndpointConfig, explicitMetricsPath: Array<bool>): bool {
  const sc = ctx.sc;
  const seen = new Set<string>();
  let hasAddress = false;
  let hasCluster = false;
  while (true) {
    const t = sc.next();
    if (t == JsonToken.ObjEnd) break;
    if (t != JsonToken.String) return false;
    const key = ctx.readKey(at, seen);
    const path = childPath(at, key);
    if (!ctx.nextValue()) return false;
    const isString = sc.token == JsonToken.String;
    const s = isString ? currentString(sc) : "";
    switch (ENDPOINT_KEYS.indexOf(key)) {
      case EndpointKey.Address:
        hasAddress = true;
        if (!isString) {
          ctx.wrongValue(path, "\"ip:port\", \"[ipv6]:port\" or \"host:port\"");
        } else {
          const problem = addressProblem(s);
          if (problem.length != 0) ctx.error(path, "\"" + printable(s) + "\" is not \"ip:port\", \"[ipv6]:port\" or \"host:port\": " + problem);
          else e.address = envoyAddressName(s); // what the override header must say: see envoyAddressName
        }
        break;
      case EndpointKey.MetricsCluster:
        hasCluster = true;
        if (!isString || !isClusterName(s)) ctx.wrongValue(path, "a cluster name (1 to 255 visible ASCII characters)");
        else e.metricsCluster = s;
        break;
      case EndpointKey.MetricsPath:
        if (!isString || !isHttpPath(s)) {
          ctx.wrongValue(path, "a path starting with \"/\" (visible ASCII)");
        } else {
          e.metricsPath = s;
          explicitMetricsPath[0] = true;
        }
        break;
      case EndpointKey.Authority:
        if (!isString || (s.length != 0 && !isAuthority(s))) ctx.wrongValue(path, "\"\" or a host[:port] authority");
        else e.authority = s;
        break;
      default:
        ctx.error(path, "unknown key" + suggestionAmong(key, ENDPOINT_KEYS));
    }
    if (!ctx.skipValue()) return false;
  }
  if (!hasAddress) ctx.error(at + ".address", "required");
  if (!hasCluster) ctx.error(at + ".metricsCluster", "required (the Envoy cluster to fetch metrics through)");
  return true;
}
