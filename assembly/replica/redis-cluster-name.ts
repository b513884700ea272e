// The cluster name the plugin hands to proxy_redis_init and proxy_redis_call: the configured one with the options
// Higress reads from its query string (envoy redis/async_client.h AsyncClientConfig, parsed from the name by
// wasm/context.cc Context::redisInit; wasm-go's RedisClusterClient.Init writes them the same way). Higress buffers
// a command up to buffer_flush_timeout (3 ms) unless max_buffer_size_before_flush (1024) bytes are pending; a
// lookup holds its request, so both are 0 here: every command goes out at once. An option the configured name
// already sets is left as it is.
const UNBUFFERED: StaticArray<string> = ["buffer_flush_timeout", "max_buffer_size_before_flush"];

export function redisClusterWireName(configured: string): string {
  const q = configured.indexOf("?");
  const query = q < 0 ? "" : configured.substring(q + 1);
  let out = configured;
  let separator = q < 0 ? "?" : query.length == 0 || query.endsWith("&") ? "" : "&";
  for (let i = 0; i < UNBUFFERED.length; i++) {
    const key = unchecked(UNBUFFERED[i]);
    if (hasQueryKey(query, key)) continue;
    out += separator + key + "=0";
    separator = "&";
  }
  return out;
}

function hasQueryKey(query: string, key: string): bool {
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf("&", start);
    if (end < 0) end = query.length;
    const eq = query.indexOf("=", start);
    const nameEnd = eq >= 0 && eq < end ? eq : end;
    if (query.substring(start, nameEnd) == key) return true;
    start = end + 1;
  }
  return false;
}
