import { addressKey, addressProblem, envoyAddressName, isHostName, isIpv4, isIpv6 } from "../../assembly/config/endpoint-address";
import { isAuthority, isHeaderName, isHttpPath, isMetricName } from "../../assembly/config/string-formats";

function expectAll(values: string[], check: (s: string) => bool, expected: bool): void {
  for (let i = 0; i < values.length; i++) {
    expect(check(values[i])).toBe(expected, values[i]);
  }
}

describe("endpoint addresses", () => {
  it("accepts ip:port, [ipv6]:port and host:port with port 1..65535", () => {
    const good = [
      "10.0.0.1:8000", "0.0.0.0:1", "255.255.255.255:65535", "[::1]:80", "[::]:80", "[fd00::1]:8000",
      "[2001:db8:0:0:0:0:2:1]:443", "[2001:db8::2:1]:443", "[::ffff:192.0.2.1]:80", "[1:2:3:4:5:6:7::]:1",
      "localhost:8000", "vllm-0.vllm.default.svc.cluster.local:8000", "A.b-c.D:9", "1host:2", "a:1",
    ];
    for (let i = 0; i < good.length; i++) expect(addressProblem(good[i])).toBe("", good[i]);
  });

  it("rejects everything else with a reason", () => {
    const bad = [
      "", "10.0.0.1", ":80", "10.0.0.1:", "10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:99999", "10.0.0.1:+80",
      "10.0.0.1:080", "10.0.0.1: 80", "10.0.0.1:80 ", "10.0.0.256:80", "10.0.0:80", "10.0.0.1.2:80", "010.0.0.1:80",
      "::1:80", "[::1]", "[::1]80", "[::1:80", "[]:80", "[1:2:3:4:5:6:7:8:9]:80", "[1::2::3]:80", "[:::1]:80",
      "[12345::1]:80", "[g::1]:80", "[1.2.3.4::]:80", "[::1.2.3.256]:80", "[1:2:3:4:5:6:7:8::]:80",
      "host_name:80", "-host:80", "host-:80", "a..b:80", ".a:80", "a.:80", "hö st:80", "http://a:80",
    ];
    for (let i = 0; i < bad.length; i++) expect(addressProblem(bad[i]).length > 0).toBe(true, bad[i]);
  });

  it("labels and names have length limits", () => {
    const label63 = "a".repeat(63);
    expect(isHostName(label63)).toBe(true);
    expect(isHostName("a".repeat(64))).toBe(false);
    // 4 labels of 63 plus 3 dots = 255 > 253.
    expect(isHostName([label63, label63, label63, label63].join("."))).toBe(false);
    expect(isHostName([label63, label63, label63, "a".repeat(61)].join("."))).toBe(true);
  });

  it("classifies IPv4 and IPv6 text forms", () => {
    expectAll(["1.2.3.4", "0.0.0.0", "255.255.255.255"], isIpv4, true);
    expectAll(["1.2.3", "1.2.3.4.", "01.2.3.4", "1.2.3.1000", "256.1.1.1", "a.b.c.d", ""], isIpv4, false);
    expectAll(["::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "::ffff:1.2.3.4", "Fe80::aB"], isIpv6, true);
    expectAll(["", ":", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::", "1:2:3:4:5:6:7:1.2.3.4", "12345::"], isIpv6, false);
  });

  it("host names compare case-insensitively", () => {
    expect(addressKey("VLLM.svc:80")).toBe(addressKey("vllm.SVC:80"));
    expect(addressKey("vllm:80") == addressKey("vllm:81")).toBe(false);
  });
});

describe("string formats", () => {
  it("header names are non-empty RFC 9110 tokens", () => {
    expectAll(["x-tenant", "X_Y", "a", "!#$%&'*+-.^_`|~09AZaz"], isHeaderName, true);
    expectAll(["", "x y", ":path", "a,b", "a;b", "a/b", "a\"b", "a(b)", "a\tb", "é", "a@b", "a=b", "{a}"], isHeaderName, false);
  });

  it("paths start with / and are visible ASCII", () => {
    expectAll(["/", "/metrics", "/stats/prometheus?format=text"], isHttpPath, true);
    expectAll(["", "metrics", " /metrics", "/a b", "/a\tb", "/é"], isHttpPath, false);
  });

  it("authorities are host or host:port without path, query or userinfo", () => {
    expectAll(["vllm", "vllm:8000", "[::1]:80", "10.0.0.1"], isAuthority, true);
    expectAll(["", "a b", "a/b", "user@host", "a?b", "a#b"], isAuthority, false);
  });

  it("metric names follow the Prometheus grammar", () => {
    expectAll(["vllm:num_requests_waiting", "_x", ":x", "a1"], isMetricName, true);
    expectAll(["", "1a", "a-b", "a b", "a.b"], isMetricName, false);
  });
});

describe("envoyAddressName", () => {
  it("writes IPv6 as inet_ntop does; leaves IPv4 and host names as given", () => {
    const cases: string[][] = [
      ["[FD00:0:0:0:0:0:0:1]:8000", "[fd00::1]:8000"],
      ["[fd00::1]:8000", "[fd00::1]:8000"],
      ["[2001:0db8:0000:0000:0001:0000:0000:0001]:80", "[2001:db8::1:0:0:1]:80"],
      ["[2001:db8:0:1:1:1:1:1]:80", "[2001:db8:0:1:1:1:1:1]:80"],
      ["[1:0:0:2:0:0:0:3]:80", "[1:0:0:2::3]:80"],
      ["[1:0:0:2:0:0:3:4]:80", "[1::2:0:0:3:4]:80"],
      ["[0:0:0:0:0:0:0:0]:80", "[::]:80"],
      ["[::1]:80", "[::1]:80"],
      ["[1::]:80", "[1::]:80"],
      ["[::ffff:10.0.0.1]:80", "[::ffff:10.0.0.1]:80"],
      ["[::FFFF:a00:1]:80", "[::ffff:10.0.0.1]:80"],
      ["[::a00:1]:80", "[::10.0.0.1]:80"],
      ["[::2]:80", "[::2]:80"],
      ["[0:0:0:0:0:1:0:0]:80", "[::1:0:0]:80"],
      ["[64:ff9b::10.0.0.1]:80", "[64:ff9b::a00:1]:80"],
      ["10.0.0.1:80", "10.0.0.1:80"],
      ["Vllm-0.local:80", "Vllm-0.local:80"],
    ];
    for (let i = 0; i < cases.length; i++) expect(envoyAddressName(cases[i][0])).toBe(cases[i][1], cases[i][0]);
  });
});
