// An upstream host's address as Envoy names it in a cluster: "ip:port", "[v6]:port", or "name:port" for the
// gateway's own configuration.

/** "ip:port", "[v6]:port" or "name:port" into its host (brackets removed) and port; throws on anything else. */
export function splitAddress(address: string): { hostname: string; port: number } {
  const i = address.lastIndexOf(":");
  if (i <= 0) throw new Error(`upstream address must be host:port, got "${address}"`);
  const port = Number(address.slice(i + 1));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`bad port in upstream address "${address}"`);
  let hostname = address.slice(0, i);
  if (hostname.startsWith("[") && hostname.endsWith("]")) hostname = hostname.slice(1, -1);
  return { hostname, port };
}
