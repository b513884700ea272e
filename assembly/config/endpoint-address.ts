// Validation of an endpoint address: `ip:port`, `[ipv6]:port` or `host:port` with port 1..65535.

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

function isHexDigit(c: i32): bool {
  return isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

function isLetter(c: i32): bool {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

/** Decimal 1..65535 without sign or leading zero. */
function isPort(s: string): bool {
  const n = s.length;
  if (n == 0 || n > 5 || s.charCodeAt(0) == 0x30) return false;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return false;
    v = v * 10 + (c - 0x30);
  }
  return v <= 65535;
}

/** Dotted-quad IPv4, each octet 0..255 without leading zeros. */
export function isIpv4(s: string): bool {
  let octets = 0;
  let i = 0;
  const n = s.length;
  while (octets < 4) {
    const first = i;
    let v = 0;
    while (i < n && isDigit(s.charCodeAt(i)) && i - first < 3) {
      v = v * 10 + (s.charCodeAt(i) - 0x30);
      i++;
    }
    const len = i - first;
    if (len == 0 || v > 255 || (len > 1 && s.charCodeAt(first) == 0x30)) return false;
    octets++;
    if (octets < 4) {
      if (i >= n || s.charCodeAt(i) != 0x2e) return false;
      i++;
    }
  }
  return i == n;
}

// Groups of a colon-separated run of IPv6 hex groups ("" is zero groups); an IPv4 tail counts as two.
// Returns -1 if malformed.
function ipv6Groups(s: string, allowIpv4Tail: bool): i32 {
  if (s.length == 0) return 0;
  const parts = s.split(":");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (i == parts.length - 1 && allowIpv4Tail && p.includes(".")) {
      return isIpv4(p) ? parts.length + 1 : -1;
    }
    if (p.length == 0 || p.length > 4) return -1;
    for (let j = 0; j < p.length; j++) if (!isHexDigit(p.charCodeAt(j))) return -1;
  }
  return parts.length;
}

/** An IPv6 address in text form (RFC 4291 section 2.2), without zone. */
export function isIpv6(s: string): bool {
  const gap = s.indexOf("::");
  if (gap < 0) return ipv6Groups(s, true) == 8;
  if (s.indexOf("::", gap + 1) >= 0) return false;
  const right = s.substring(gap + 2);
  const leftGroups = ipv6Groups(s.substring(0, gap), false);
  const rightGroups = ipv6Groups(right, true);
  return leftGroups >= 0 && rightGroups >= 0 && leftGroups + rightGroups <= 7;
}

/** An RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, at most 253 characters. */
export function isHostName(s: string): bool {
  if (s.length == 0 || s.length > 253) return false;
  let labelStart = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0x2e;
    if (c == 0x2e) {
      const len = i - labelStart;
      if (len == 0 || len > 63) return false;
      if (s.charCodeAt(labelStart) == 0x2d || s.charCodeAt(i - 1) == 0x2d) return false;
      labelStart = i + 1;
    } else if (!isLetter(c) && !isDigit(c) && c != 0x2d) {
      return false;
    }
  }
  return true;
}

// Host part made only of digits and dots: meant as IPv4, so it must be one (not a host name).
function looksNumeric(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c) && c != 0x2e) return false;
  }
  return true;
}

/** "" if s is a valid endpoint address, else what is wrong with it. */
export function addressProblem(s: string): string {
  let host: string;
  let port: string;
  if (s.startsWith("[")) {
    const close = s.indexOf("]");
    if (close < 0) return "missing \"]\" after the IPv6 address";
    if (close + 1 >= s.length || s.charCodeAt(close + 1) != 0x3a) return "expected \":port\" after \"]\"";
    host = s.substring(1, close);
    port = s.substring(close + 2);
    if (!isIpv6(host)) return "\"" + host + "\" is not an IPv6 address";
  } else {
    const colon = s.lastIndexOf(":");
    if (colon < 0) return "missing \":port\"";
    host = s.substring(0, colon);
    port = s.substring(colon + 1);
    if (host.includes(":")) return "an IPv6 address must be written in brackets, [ipv6]:port";
    if (host.length == 0) return "missing host";
    if (looksNumeric(host)) {
      if (!isIpv4(host)) return "\"" + host + "\" is not an IPv4 address";
    } else if (!isHostName(host)) {
      return "\"" + host + "\" is not a valid host name";
    }
  }
  if (!isPort(port)) return "port must be a number in [1, 65535] without leading zeros";
  return "";
}

// The values of a colon-separated run of groups validated by ipv6Groups (an IPv4 tail gives two).
function groupValues(s: string, out: Array<u32>): void {
  if (s.length == 0) return;
  const parts = s.split(":");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.includes(".")) {
      const o = p.split(".");
      out.push((<u32>I32.parseInt(o[0]) << 8) | <u32>I32.parseInt(o[1]));
      out.push((<u32>I32.parseInt(o[2]) << 8) | <u32>I32.parseInt(o[3]));
    } else {
      out.push(<u32>I32.parseInt(p, 16));
    }
  }
}

/**
 * A valid IPv6 address (isIpv6) as inet_ntop writes it (glibc resolv/inet_ntop.c): lower-case hex without leading
 * zeros, the first longest run of two or more zero groups written "::", and an IPv4 tail for ::a.b.c.d and
 * ::ffff:a.b.c.d.
 */
export function inetNtopIpv6(s: string): string {
  const words = new StaticArray<u32>(8);
  const gap = s.indexOf("::");
  const left = new Array<u32>();
  const right = new Array<u32>();
  groupValues(gap < 0 ? s : s.substring(0, gap), left);
  if (gap >= 0) groupValues(s.substring(gap + 2), right);
  for (let i = 0; i < left.length; i++) words[i] = left[i];
  for (let i = 0; i < right.length; i++) words[8 - right.length + i] = right[i];
  let bestBase = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] != 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] == 0) j++;
    if (j - i > bestLen) {
      bestBase = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestBase = -1;
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLen) {
      if (i == bestBase) out += ":";
      continue;
    }
    if (i != 0) out += ":";
    if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && words[5] == 0xffff))) {
      out += (words[6] >> 8).toString() + "." + (words[6] & 0xff).toString() + "." + (words[7] >> 8).toString() + "." + (words[7] & 0xff).toString();
      return out;
    }
    out += words[i].toString(16);
  }
  if (bestBase >= 0 && bestBase + bestLen == 8) out += ":";
  return out;
}

/**
 * A valid endpoint address as Envoy names that host: an IPv6 address in inet_ntop's form ("[" + inet_ntop + "]:port",
 * envoy source/common/network/address_impl.cc Ipv6Instance), anything else as given. Envoy's override_host policy
 * looks the header's value up by that name, so "[FD00:0::1]:80" would never match the host "[fd00::1]:80".
 */
export function envoyAddressName(s: string): string {
  if (!s.startsWith("[")) return s;
  const close = s.indexOf("]");
  return "[" + inetNtopIpv6(s.substring(1, close)) + s.substring(close);
}

/** Whether a valid endpoint address names its host by name rather than by IP address. */
export function isHostNameAddress(s: string): bool {
  if (s.startsWith("[")) return false;
  const colon = s.lastIndexOf(":");
  return colon > 0 && !looksNumeric(s.substring(0, colon));
}

/** The form under which two addresses count as the same endpoint (host names are case-insensitive). */
export function addressKey(s: string): string {
  return s.toLowerCase();
}
