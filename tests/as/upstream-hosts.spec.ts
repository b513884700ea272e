import {
  DEFAULT_METRICS_CAP,
  GATEWAY_METRICS_CUT,
  HostHealth,
  UpstreamHostsParser,
} from "../../assembly/endpoints/upstream-hosts";
import { addressHash } from "../../assembly/endpoints/endpoint-registry";
import { PrometheusParser } from "../../assembly/endpoints/prometheus";
import { EndpointMetrics } from "../../assembly/endpoints/endpoint-metrics";
import { xxh64Bytes } from "../../assembly/prefix/xxh64";

const parser = new PrometheusParser();

function utf8(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

/**
 * A serialized map laid out by hand per the proxy-wasm spec: u32 count, u32 key and value length per pair, then
 * each key and each value followed by a NUL byte, little-endian.
 */
function serializeMap(keys: Array<string>, values: Array<string>): Uint8Array {
  const n = keys.length;
  let size = 4 + 8 * n;
  const k = new Array<Uint8Array>();
  const v = new Array<Uint8Array>();
  for (let i = 0; i < n; i++) {
    k.push(utf8(keys[i]));
    v.push(utf8(values[i]));
    size += k[i].length + v[i].length + 2;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, n, true);
  let data = 4 + 8 * n;
  for (let i = 0; i < n; i++) {
    view.setUint32(4 + 8 * i, k[i].length, true);
    view.setUint32(8 + 8 * i, v[i].length, true);
    out.set(k[i], data);
    data += k[i].length + 1; // the NUL is already 0
    out.set(v[i], data);
    data += v[i].length + 1;
  }
  return out;
}

const HEX = "0123456789abcdef";

/** JSON string escaping as a strict encoder writes it, non-ASCII as \u escapes (surrogate pairs above U+FFFF). */
function jsonEscape(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c == 0x0a) out += "\\n";
    else if (c == 0x09) out += "\\t";
    else if (c < 0x20 || c >= 0x7f) {
      out += "\\u" + HEX.charAt((c >> 12) & 15) + HEX.charAt((c >> 8) & 15) + HEX.charAt((c >> 4) & 15) + HEX.charAt(c & 15);
    } else out += String.fromCharCode(c);
  }
  return out;
}

function hostJson(health: string, metrics: string): string {
  return '{"health_status":"' + health + '","metrics":"' + jsonEscape(metrics) + '"}';
}

let input: Uint8Array = new Uint8Array(0);

function parse(p: UpstreamHostsParser, keys: Array<string>, values: Array<string>): i32 {
  input = serializeMap(keys, values);
  return p.parse(input.dataStart, <usize>input.length);
}

function parseBytes(p: UpstreamHostsParser, bytes: Uint8Array): i32 {
  input = bytes;
  return p.parse(bytes.dataStart, <usize>bytes.length);
}

function address(p: UpstreamHostsParser, i: i32): string {
  return String.UTF8.decodeUnsafe(p.addressPtr(i), <usize>p.addressLen(i));
}

function decoded(p: UpstreamHostsParser, i: i32): string {
  const n = p.decodeMetrics(i);
  return String.UTF8.decodeUnsafe(p.scratchPtr, <usize>n);
}

function page(waiting: string, running: string): string {
  return (
    "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n" +
    "# TYPE vllm:num_requests_waiting gauge\n" +
    'vllm:num_requests_waiting{engine="0",model_name="qwen"} ' + waiting + "\n" +
    "# HELP vllm:num_requests_running Number of requests in model execution batches.\n" +
    "# TYPE vllm:num_requests_running gauge\n" +
    'vllm:num_requests_running{engine="0",model_name="qwen"} ' + running + "\n"
  );
}

const metrics = new EndpointMetrics();

describe("UpstreamHostsParser on Higress answers", () => {
  it("reads addresses, health and metrics of every host", () => {
    const p = new UpstreamHostsParser(8);
    const pageA = page("3.0", "1.0");
    const pageB = page("0.0", "5.0");
    const n = parse(
      p,
      ["10.0.0.11:8000", "10.0.0.12:8000", "10.0.0.13:8000"],
      [hostJson("Healthy", pageA), hostJson("Healthy", pageB), hostJson("Unhealthy", "")],
    );
    expect<i32>(n).toBe(3);
    expect<i32>(p.count).toBe(3);
    expect<i32>(p.errors).toBe(0);
    expect<i32>(p.overflow).toBe(0);
    expect<string>(address(p, 0)).toBe("10.0.0.11:8000");
    expect<string>(address(p, 2)).toBe("10.0.0.13:8000");
    const a = utf8("10.0.0.12:8000");
    expect<u64>(p.addressHash(1)).toBe(addressHash(a.dataStart, <usize>a.length));
    expect<bool>(p.healthy(0)).toBe(true);
    expect<bool>(p.healthy(1)).toBe(true);
    expect<bool>(p.healthy(2)).toBe(false);
    expect<i32>(p.health(2)).toBe(HostHealth.Unhealthy);
    expect<string>(decoded(p, 0)).toBe(pageA);
    expect<string>(decoded(p, 1)).toBe(pageB);
    expect<bool>(p.metricsTruncated(1)).toBe(false);
    // The decoded text is what the Prometheus parser reads.
    const len = p.decodeMetrics(1);
    expect<bool>(parser.parse(p.scratchPtr, <usize>len, p.metricsTruncated(1), metrics, 1000)).toBe(true);
    expect<f64>(metrics.waiting).toBe(0);
    expect<f64>(metrics.running).toBe(5);
    expect<bool>(p.hasMetrics(2)).toBe(true);
    expect<i32>(p.decodeMetrics(2)).toBe(0);
  });

  it("unescapes quotes, backslashes, control characters and unicode escapes", () => {
    const p = new UpstreamHostsParser(2);
    const text =
      'vllm:lora_requests_info{max_lora="2",running_lora_adapters="a\\"b",waiting_lora_adapters=""} 1.7e9\n' +
      "# HELP x caf\u00e9 \u65e5\u672c \ud83d\ude80 tab\there\n";
    expect<i32>(parse(p, ["[fd00::5]:8000"], [hostJson("Healthy", text)])).toBe(1);
    expect<bool>(p.hostError(0)).toBe(false);
    expect<string>(decoded(p, 0)).toBe(text);
  });

  it("decodes raw UTF-8 and short escapes written by other encoders", () => {
    const p = new UpstreamHostsParser(2);
    // JSON.stringify style: non-ASCII kept as UTF-8; plus the optional \/ escape and a \r.
    const json = '{"metrics":"a\\/b caf\u00e9\\r\\n\ud83d\ude80 \\u00e9\\ud83d\\ude80","health_status":"Degraded"}';
    expect<i32>(parse(p, ["10.1.1.1:80"], [json])).toBe(1);
    expect<string>(decoded(p, 0)).toBe("a/b caf\u00e9\r\n\ud83d\ude80 \u00e9\ud83d\ude80");
    expect<bool>(p.healthy(0)).toBe(false);
    expect<i32>(p.health(0)).toBe(HostHealth.Degraded);
  });

  it("treats only \"Healthy\" as usable, case-sensitive, as Higress's ai-load-balancer does", () => {
    const p = new UpstreamHostsParser(16);
    const names = ["Healthy", "Unhealthy", "Degraded", "Timeout", "Draining", "Unknown", "HEALTHY", "degraded", "Healthy ", "Bogus", "H\\u0065althy"];
    const usable = [true, false, false, false, false, false, false, false, false, false, true];
    const codes = [
      HostHealth.Healthy, HostHealth.Unhealthy, HostHealth.Degraded, HostHealth.Timeout, HostHealth.Draining,
      HostHealth.Unknown, HostHealth.Unknown, HostHealth.Unknown, HostHealth.Unknown, HostHealth.Unknown,
      HostHealth.Healthy,
    ];
    const keys = new Array<string>();
    const values = new Array<string>();
    for (let i = 0; i < names.length; i++) {
      keys.push("10.0.0." + i.toString() + ":8000");
      values.push('{"health_status":"' + names[i] + '","metrics":""}');
    }
    keys.push("10.0.1.1:8000");
    values.push('{"health_status":null,"metrics":""}');
    keys.push("10.0.1.2:8000");
    values.push('{"metrics":"x 1\\n"}');
    expect<i32>(parse(p, keys, values)).toBe(names.length + 2);
    for (let i = 0; i < names.length; i++) {
      expect<bool>(p.healthy(i)).toBe(usable[i]);
      expect<i32>(p.health(i)).toBe(codes[i]);
    }
    expect<bool>(p.healthy(names.length)).toBe(false);
    expect<bool>(p.hostError(names.length)).toBe(false);
    expect<bool>(p.healthy(names.length + 1)).toBe(false);
    expect<bool>(p.hostError(names.length + 1)).toBe(false);
    expect<string>(decoded(p, names.length + 1)).toBe("x 1\n");
  });

  it("skips unknown keys, including nested values", () => {
    const p = new UpstreamHostsParser(2);
    const json = '{"weight":3,"labels":{"zone":["a","b"],"x":null},"health_status":"Healthy","metrics":"m 1\\n","extra":true}';
    expect<i32>(parse(p, ["10.0.0.1:1"], [json])).toBe(1);
    expect<bool>(p.hostError(0)).toBe(false);
    expect<bool>(p.healthy(0)).toBe(true);
    expect<string>(decoded(p, 0)).toBe("m 1\n");
  });

  it("reads a host without metrics as having none", () => {
    const p = new UpstreamHostsParser(2);
    expect<i32>(parse(p, ["10.0.0.1:1", "10.0.0.2:1"], ['{"health_status":"Healthy"}', '{"health_status":"Healthy","metrics":null}'])).toBe(2);
    for (let i = 0; i < 2; i++) {
      expect<bool>(p.hostError(i)).toBe(false);
      expect<bool>(p.hasMetrics(i)).toBe(false);
      expect<i32>(p.decodeMetrics(i)).toBe(0);
    }
  });
});

describe("UpstreamHostsParser on bad hosts", () => {
  it("skips a host with bad metadata and still reads the others", () => {
    const p = new UpstreamHostsParser(16);
    const bad = [
      "",
      "null",
      "[]",
      '"Healthy"',
      '{"health_status":"Healthy","metrics":"unterminated}',
      '{"health_status":"Healthy","metrics":"x"',
      '{"health_status":"Healthy","metrics":"x"} trailing',
      '{"health_status":1,"metrics":"x"}',
      '{"health_status":"Healthy","metrics":42}',
      '{"health_status":"Healthy","metrics":"raw\nnewline"}',
      '{"health_status":"Healthy","metrics":"bad \\q escape"}',
      '{"health_status":"Healthy" "metrics":"x"}',
      '{health_status:"Healthy"}',
    ];
    for (let b = 0; b < bad.length; b++) {
      const good = hostJson("Healthy", page("1", "2"));
      const n = parse(p, ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"], [good, bad[b], good]);
      expect<i32>(n).toBe(3);
      expect<i32>(p.errors).toBe(1);
      expect<bool>(p.hostError(0)).toBe(false);
      expect<bool>(p.hostError(1)).toBe(true);
      expect<bool>(p.healthy(1)).toBe(false);
      expect<bool>(p.hasMetrics(1)).toBe(false);
      expect<i32>(p.decodeMetrics(1)).toBe(0);
      expect<bool>(p.hostError(2)).toBe(false);
      expect<bool>(p.healthy(2)).toBe(true);
      expect<string>(address(p, 2)).toBe("10.0.0.3:8000");
      expect<string>(decoded(p, 2)).toBe(page("1", "2"));
    }
  });

  it("gives up on a host whose JSON costs more than its step budget", () => {
    const p = new UpstreamHostsParser(2);
    let big = "[";
    for (let i = 0; i < 1000; i++) big += i == 0 ? "0" : ",0";
    big += "]";
    const n = parse(p, ["10.0.0.1:1", "10.0.0.2:1"], ['{"pad":' + big + ',"health_status":"Healthy","metrics":""}', hostJson("Healthy", "")]);
    expect<i32>(n).toBe(2);
    expect<bool>(p.hostError(0)).toBe(true);
    expect<bool>(p.healthy(1)).toBe(true);
  });

  it("rejects empty addresses and addresses with blanks or control bytes", () => {
    const p = new UpstreamHostsParser(4);
    const ok = hostJson("Healthy", "");
    expect<i32>(parse(p, ["", "10.0.0.1 :80", "10.0.0.1:80\t", "10.0.0.1:80"], [ok, ok, ok, ok])).toBe(4);
    expect<bool>(p.hostError(0)).toBe(true);
    expect<bool>(p.hostError(1)).toBe(true);
    expect<bool>(p.hostError(2)).toBe(true);
    expect<bool>(p.hostError(3)).toBe(false);
    expect<i32>(p.errors).toBe(3);
  });

  it("keeps the first of duplicate addresses and flags the rest", () => {
    const p = new UpstreamHostsParser(8);
    const n = parse(
      p,
      ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.1:8000", "10.0.0.1:8000", "10.0.0.10:8000"],
      [hostJson("Healthy", "first\n"), hostJson("Healthy", ""), hostJson("Healthy", "second\n"), "garbage", hostJson("Unhealthy", "")],
    );
    expect<i32>(n).toBe(5);
    expect<bool>(p.hostError(0)).toBe(false);
    expect<string>(decoded(p, 0)).toBe("first\n");
    expect<bool>(p.hostError(2)).toBe(true);
    expect<bool>(p.hostError(3)).toBe(true);
    expect<bool>(p.hostError(4)).toBe(false);
    expect<i32>(p.errors).toBe(2);
  });

  it("finds duplicates among many hosts", () => {
    const p = new UpstreamHostsParser(300);
    const keys = new Array<string>();
    const values = new Array<string>();
    for (let i = 0; i < 300; i++) {
      // Every third host repeats the address of host i / 3.
      const id = i % 3 == 2 ? i / 3 : i;
      keys.push("10.0." + (id >> 8).toString() + "." + (id & 255).toString() + ":8000");
      values.push('{"health_status":"Healthy"}');
    }
    expect<i32>(parse(p, keys, values)).toBe(300);
    const earlier = new Set<string>();
    let repeats = 0;
    for (let i = 0; i < 300; i++) {
      const repeat = earlier.has(keys[i]);
      if (repeat) repeats++;
      expect<bool>(p.hostError(i)).toBe(repeat);
      earlier.add(keys[i]);
    }
    expect<i32>(p.errors).toBe(repeats);
    expect<bool>(repeats > 50).toBe(true);
  });

  it("counts hosts beyond maxHosts as overflow", () => {
    const p = new UpstreamHostsParser(2);
    const ok = hostJson("Healthy", "");
    expect<i32>(parse(p, ["a:1", "b:1", "c:1", "d:1", "e:1"], [ok, ok, ok, ok, ok])).toBe(2);
    expect<i32>(p.count).toBe(2);
    expect<i32>(p.overflow).toBe(3);
    expect<string>(address(p, 1)).toBe("b:1");
    expect<bool>(p.hostError(2)).toBe(true);
    expect<usize>(p.addressPtr(2)).toBe(0);
  });
});

describe("UpstreamHostsParser on malformed maps", () => {
  it("reads empty maps as no hosts", () => {
    const p = new UpstreamHostsParser(4);
    expect<i32>(p.parse(0, 0)).toBe(0);
    expect<i32>(parseBytes(p, new Uint8Array(1))).toBe(0);
    expect<i32>(parseBytes(p, new Uint8Array(4))).toBe(0);
  });

  it("fails the whole answer when the map lies about its size", () => {
    const p = new UpstreamHostsParser(4);
    const good = serializeMap(["10.0.0.1:1", "10.0.0.2:1"], [hostJson("Healthy", "a 1\n"), hostJson("Healthy", "")]);
    expect<i32>(parseBytes(p, good)).toBe(2);
    // Cut anywhere inside: the header or a pair runs past the end.
    for (let cut = 2; cut < good.length - 1; cut++) {
      expect<i32>(parseBytes(p, good.slice(0, cut))).toBe(-1);
      expect<i32>(p.count).toBe(0);
    }
    // A count larger than the pairs present.
    const lying = good.slice(0);
    new DataView(lying.buffer).setUint32(0, 3, true);
    expect<i32>(parseBytes(p, lying)).toBe(-1);
    // A value length pointing past the end.
    const longValue = good.slice(0);
    new DataView(longValue.buffer).setUint32(16, 0xffffff00, true);
    expect<i32>(parseBytes(p, longValue)).toBe(-1);
    // A huge count.
    const huge = good.slice(0);
    new DataView(huge.buffer).setUint32(0, 0xffffffff, true);
    expect<i32>(parseBytes(p, huge)).toBe(-1);
  });

  it("never traps on random or mutated input and keeps its results in range", () => {
    const p = new UpstreamHostsParser(4, 512);
    const base = serializeMap(
      ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"],
      [hostJson("Healthy", page("1", "2")), hostJson("Degraded", "q \u00e9\n"), '{"health_status":"Healthy"}'],
    );
    let state: u32 = 99;
    for (let round = 0; round < 400; round++) {
      const bytes = base.slice(0);
      const flips = 1 + <i32>(round % 8);
      for (let f = 0; f < flips; f++) {
        state = state * 1664525 + 1013904223;
        const at = <i32>((state >> 8) % <u32>bytes.length);
        bytes[at] = <u8>(state >> 24);
      }
      const end = round % 3 == 0 ? <i32>((state >> 4) % <u32>(bytes.length + 1)) : bytes.length;
      const n = parseBytes(p, bytes.slice(0, end));
      expect<bool>(n >= -1 && n <= 4).toBe(true);
      for (let i = 0; i < p.count; i++) {
        const len = p.decodeMetrics(i);
        expect<bool>(len >= 0 && len <= 512).toBe(true);
        if (!p.hostError(i)) {
          const start = p.addressPtr(i);
          expect<bool>(start >= input.dataStart && start + <usize>p.addressLen(i) <= input.dataStart + <usize>input.length).toBe(true);
        }
      }
    }
  });
});

describe("UpstreamHostsParser fingerprints and truncation", () => {
  it("fingerprints the raw metrics bytes: equal text equal, different text different", () => {
    const p = new UpstreamHostsParser(4);
    const text = page("1.0", "2.0") + 'x{l="\u00e9 \\"q\\""} 1\n';
    parse(p, ["a:1", "b:1", "c:1", "d:1"], [hostJson("Healthy", text), hostJson("Unhealthy", text), hostJson("Healthy", page("1.0", "3.0")), hostJson("Healthy", "")]);
    expect<u64>(p.metricsFingerprint(0)).toBe(p.metricsFingerprint(1));
    expect<u64>(p.metricsFingerprint(0)).not.toBe(p.metricsFingerprint(2));
    expect<u64>(p.metricsFingerprint(0)).toBe(xxh64Bytes(utf8(jsonEscape(text)), 0));
    expect<u64>(p.metricsFingerprint(3)).toBe(xxh64Bytes(new Uint8Array(0), 0));
    const first = p.metricsFingerprint(0);
    // Stable across parses of a different buffer with the same text.
    parse(p, ["z:9"], ['{"metrics":"' + jsonEscape(text) + '","health_status":"Draining"}']);
    expect<u64>(p.metricsFingerprint(0)).toBe(first);
  });

  it("flags text that reached the gateway's 64 KiB cut", () => {
    const p = new UpstreamHostsParser(2);
    let line = "";
    while (line.length < 99) line += "m";
    line += "\n"; // 100 bytes
    let full = "";
    for (let i = 0; i < GATEWAY_METRICS_CUT / 100; i++) full += line;
    const cut = full + line.substring(0, GATEWAY_METRICS_CUT - full.length); // exactly 65536 bytes
    const short = full.substring(0, 8000);
    parse(p, ["a:1", "b:1"], [hostJson("Healthy", cut), hostJson("Healthy", short)]);
    expect<i32>(p.decodeMetrics(0)).toBe(GATEWAY_METRICS_CUT);
    expect<bool>(p.metricsTruncated(0)).toBe(true);
    expect<string>(String.UTF8.decodeUnsafe(p.scratchPtr, GATEWAY_METRICS_CUT)).toBe(cut);
    expect<i32>(p.decodeMetrics(1)).toBe(8000);
    expect<bool>(p.metricsTruncated(1)).toBe(false);
    expect<bool>(DEFAULT_METRICS_CAP > GATEWAY_METRICS_CUT).toBe(true);
  });

  it("stops at metricsCap without splitting a character and flags the cut", () => {
    const p = new UpstreamHostsParser(1, 10);
    parse(p, ["a:1"], [hostJson("Healthy", "abcdefgh\u00e9\u00e9")]); // 8 + 2 + 2 bytes
    expect<i32>(p.decodeMetrics(0)).toBe(10);
    expect<bool>(p.metricsTruncated(0)).toBe(true);
    expect<string>(String.UTF8.decodeUnsafe(p.scratchPtr, 10)).toBe("abcdefgh\u00e9");
    const q = new UpstreamHostsParser(1, 11);
    parse(q, ["a:1"], [hostJson("Healthy", "abcdefgh\u00e9\u00e9")]);
    expect<i32>(q.decodeMetrics(0)).toBe(10);
    expect<bool>(q.metricsTruncated(0)).toBe(true);
    const r = new UpstreamHostsParser(1, 12);
    parse(r, ["a:1"], [hostJson("Healthy", "abcdefgh\u00e9\u00e9")]);
    expect<i32>(r.decodeMetrics(0)).toBe(12);
    expect<bool>(r.metricsTruncated(0)).toBe(false);
  });
});
