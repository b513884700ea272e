// Formats of the string-valued configuration keys: header names, HTTP paths, authorities, metric names.

// RFC 9110 tchar: "!" "#" "$" "%" "&" "'" "*" "+" "-" "." "^" "_" "`" "|" "~" DIGIT ALPHA.
function isTokenChar(c: i32): bool {
  if ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)) return true;
  switch (c) {
    case 0x21: case 0x23: case 0x24: case 0x25: case 0x26: case 0x27: case 0x2a: case 0x2b:
    case 0x2d: case 0x2e: case 0x5e: case 0x5f: case 0x60: case 0x7c: case 0x7e:
      return true;
  }
  return false;
}

/** Visible ASCII, no space: what may appear unescaped in a path or authority. */
function isVisibleAscii(c: i32): bool {
  return c > 0x20 && c < 0x7f;
}

/** A non-empty HTTP field name (RFC 9110 token). */
export function isHeaderName(s: string): bool {
  if (s.length == 0) return false;
  for (let i = 0; i < s.length; i++) if (!isTokenChar(s.charCodeAt(i))) return false;
  return true;
}

/** An origin-form request target: starts with "/", visible ASCII only. */
export function isHttpPath(s: string): bool {
  if (s.length == 0 || s.charCodeAt(0) != 0x2f) return false;
  for (let i = 1; i < s.length; i++) if (!isVisibleAscii(s.charCodeAt(i))) return false;
  return true;
}

/** Visible ASCII only ("" included). */
export function isVisibleText(s: string): bool {
  for (let i = 0; i < s.length; i++) if (!isVisibleAscii(s.charCodeAt(i))) return false;
  return true;
}

/** An Envoy cluster name as configs write them: 1 to 255 visible ASCII characters (a space or control character is
 *  a typo that would fail every call at run time). */
export function isClusterName(s: string): bool {
  return s.length != 0 && s.length <= 255 && isVisibleText(s);
}

/** host or host:port for an :authority header: visible ASCII without "/", "?", "#" or "@". */
export function isAuthority(s: string): bool {
  if (s.length == 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isVisibleAscii(c) || c == 0x2f || c == 0x3f || c == 0x23 || c == 0x40) return false;
  }
  return true;
}

/** A Prometheus metric name: [a-zA-Z_:][a-zA-Z0-9_:]*. */
export function isMetricName(s: string): bool {
  if (s.length == 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const letter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
    const ok = letter || c == 0x5f || c == 0x3a || (i > 0 && c >= 0x30 && c <= 0x39);
    if (!ok) return false;
  }
  return true;
}
