// The `_match_*_` keys of one `_rules_` entry: arrays of non-empty strings stored into the rule.
import { JsonToken } from "../json/scanner";
import { ConfigRule, MATCH_DOMAIN_KEY, MATCH_ROUTE_KEY, MATCH_ROUTE_PREFIX_KEY, MATCH_SERVICE_KEY } from "./config-rule";
import { ParseContext } from "./parse-context";
import { currentString } from "./scanner-values";

const MATCHER_PREFIX = "_match_";

/** Whether key names a matcher (known or not): such keys are never configuration keys. */
export function isMatcherKey(key: string): bool {
  return key.startsWith(MATCHER_PREFIX);
}

/**
 * Parses the value (current token) of the matcher `key` of `rule`, shown at `shown`. An unknown `_match_*_`
 * key is an error. Returns false if the document is not valid JSON.
 */
export function parseMatcher(ctx: ParseContext, key: string, shown: string, rule: ConfigRule): bool {
  let out: Array<string>;
  if (key == MATCH_ROUTE_KEY) out = rule.routes;
  else if (key == MATCH_ROUTE_PREFIX_KEY) out = rule.routePrefixes;
  else if (key == MATCH_DOMAIN_KEY) out = rule.domains;
  else if (key == MATCH_SERVICE_KEY) out = rule.services;
  else {
    ctx.error(
      shown,
      "unknown matcher (expected " + MATCH_ROUTE_KEY + ", " + MATCH_ROUTE_PREFIX_KEY + ", " + MATCH_DOMAIN_KEY +
        " or " + MATCH_SERVICE_KEY + ")",
    );
    return ctx.skipValue();
  }
  const sc = ctx.sc;
  if (sc.token != JsonToken.ArrStart) {
    ctx.wrongValue(shown, "an array of non-empty strings");
    return ctx.skipValue();
  }
  let i = 0;
  while (true) {
    const t = sc.next();
    if (t == JsonToken.ArrEnd) return true;
    if (t >= JsonToken.End) return false;
    const at = shown + "[" + i.toString() + "]";
    i++;
    const s = t == JsonToken.String ? currentString(sc) : "";
    if (s.length == 0) ctx.wrongValue(at, "a non-empty string");
    else out.push(s);
    if (!ctx.skipValue()) return false;
  }
  return false; // unreachable: every iteration costs a scanner step
}
