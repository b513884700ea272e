// Parsing and validation of the plugin configuration JSON (docs/config.md) into a PluginConfig.
//
// Every bad field is collected and reported in one line; only broken JSON stops parsing early. Duplicate keys
// in one object are rejected (a repeated key is more likely a mistake than an intended override). Higress's
// `_rules_` entries are parsed by the same parser, each into its own complete configuration.
import { JsonToken } from "../json/scanner";
import { PREFIX_INDEX_MAX_ENTRIES, PrefixIndex } from "../prefix/prefix-index";
import { DEFAULT_STALE_AFTER_MS, MAX_STALE_AFTER_MS, MetricPolicy, PickerConfig } from "./picker-config";
import { PluginConfig } from "./plugin-config";
import { CONFIG_SECTIONS, ENDPOINTS_KEY, LB_POLICY_FIELD, METRIC_POLICY_NAMES, STOCK_ONLY_KEYS, findField } from "./config-schema";
import { FieldKind, FieldSpec, FieldValue, TextFormat, formatNumber } from "./field-spec";
import { CONFIG_MAX_DEPTH, CONFIG_MAX_STEPS, ParseContext, childPath } from "./parse-context";
import { parseEndpoints } from "./endpoints-section";
import { REDIS_SECTION } from "./redis-section";
import { DISCOVERY_REQUIRED, DISCOVERY_SECTION } from "./discovery-section";
import { currentString, describeCurrentValue } from "./scanner-values";
import { ConfigRule, MATCH_DOMAIN_KEY, MATCH_ROUTE_KEY, MATCH_ROUTE_PREFIX_KEY, MATCH_SERVICE_KEY, RULES_KEY } from "./config-rule";
import { isMatcherKey, parseMatcher } from "./rule-matchers";
import { LB_TYPE_KEY, lbTypeProblem, refusedLbConfigKeyProblem, refusedPolicyProblem } from "./higress-migration";
import { configKeySuggestion } from "./key-suggestion";

const ERROR_PREFIX = "invalid plugin config: ";
const LB_POLICY_KEY = "lb_policy";
const LB_CONFIG_KEY = "lb_config";

function discoveryKeyPurpose(key: string): string {
  if (key == "discovery.cluster") return "the Envoy cluster that reaches Envoy's admin listener";
  if (key == "discovery.servingCluster") return "the Envoy cluster whose hosts are the endpoints";
  return "an ORIGINAL_DST cluster with original_dst_lb_config.use_http_header, through which each endpoint's /metrics is fetched";
}

function isBlank(ptr: usize, len: usize): bool {
  for (let i: usize = 0; i < len; i++) {
    const c = load<u8>(ptr + i);
    if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) return false;
  }
  return true;
}

/** For a dotted key naming a nested one (`"prefix.chunkChars"`), how to write it; else "". */
function nestingHint(path: string): string {
  if (findField(path) === null) return "";
  const dot = path.indexOf(".");
  return " (a key holds no dots: write {\"" + path.substring(0, dot) + "\": {\"" + path.substring(dot + 1) + "\": ...}})";
}

class ConfigParser {
  private readonly value: FieldValue = new FieldValue();
  /** Schema paths ("limits.maxEndpoints") whose value was rejected; cross-field checks skip them. */
  private readonly rejected: Set<string> = new Set<string>();
  /** metrics.staleAfterMs was given (else it follows the poll interval, see checkRelations). */
  private staleAfterGiven: bool = false;
  private readonly explicitMetricsPath: Array<bool> = [];
  private endpointsRejected: bool = false;
  private lbPolicySeen: bool = false;
  private lbConfigSeen: bool = false;
  private lbTypeSeen: bool = false;
  /** Top-level keys of the plain layout, which may not sit next to lb_policy/lb_config. */
  private readonly plainTopKeys: Array<string> = [];
  /** The document is valid JSON but not an object. */
  notAnObject: bool = false;
  /** The document had a key other than `_rules_` (a default configuration). */
  private hasConfigKeys: bool = false;
  private rulesSeen: bool = false;

  /**
   * `base` is where this configuration's top level is shown in messages ("" for the document, "_rules_[2]" for
   * a rule); `rule` is the rule being parsed (its matchers are allowed and `_rules_` is not), or null.
   */
  constructor(
    readonly out: PickerConfig,
    readonly isStockEnvoy: bool,
    readonly ctx: ParseContext,
    readonly base: string,
    readonly rule: ConfigRule | null,
    /** The document being parsed (where `_rules_` go) when this parses its top level, else null. */
    readonly document: PluginConfig | null,
  ) {}

  /** Reads the document; false if it is not valid JSON. */
  parseDocument(ptr: usize, len: usize): bool {
    const sc = this.ctx.sc;
    sc.reset(ptr, len, CONFIG_MAX_STEPS);
    const t = sc.next();
    if (t >= JsonToken.End) return false;
    if (t != JsonToken.ObjStart) {
      this.ctx.problem("the configuration must be a JSON object, got " + describeCurrentValue(sc));
      this.notAnObject = true;
      return true;
    }
    if (!this.parseObject("", "", true)) return false;
    this.document!.hasDefault = this.hasConfigKeys || !this.rulesSeen;
    return sc.next() == JsonToken.End;
  }

  // Reads the object whose ObjStart is current. schemaPrefix locates its keys in the schema ("" or a section);
  // shownRoot is where the schema's top level sits in messages ("lb_config" inside lb_config, else "").
  private parseObject(schemaPrefix: string, shownRoot: string, isDocument: bool): bool {
    const ctx = this.ctx;
    const sc = ctx.sc;
    const seen = new Set<string>();
    const shownParent =
      shownRoot.length == 0 ? schemaPrefix : schemaPrefix.length == 0 ? shownRoot : shownRoot + "." + schemaPrefix;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ObjEnd) return true;
      if (t != JsonToken.String) return false;
      const key = ctx.readKey(shownParent, seen);
      const shown = childPath(shownParent, key);
      if (!ctx.nextValue()) return false;
      let ok: bool;
      if (isDocument && key == RULES_KEY) {
        ok = this.rule === null ? this.parseRules(shown) : this.notInRule(shown);
      } else if (isDocument && this.rule !== null && isMatcherKey(key)) {
        ok = parseMatcher(ctx, key, shown, this.rule!);
      } else if (isDocument && key == LB_TYPE_KEY) {
        this.hasConfigKeys = true;
        this.lbTypeSeen = true;
        const problem = sc.token == JsonToken.String ? lbTypeProblem(currentString(sc)) : "expected \"endpoint\"";
        if (problem.length > 0) ctx.error(shown, problem);
        ok = ctx.skipValue();
      } else if (isDocument && key == LB_POLICY_KEY) {
        this.hasConfigKeys = true;
        this.lbPolicySeen = true;
        const problem = sc.token == JsonToken.String ? refusedPolicyProblem(currentString(sc)) : "";
        if (problem.length > 0) {
          ctx.error(shown, problem);
          ok = ctx.skipValue();
        } else {
          ok = this.parseField(LB_POLICY_FIELD, shown);
        }
      } else if (!isDocument && schemaPrefix.length == 0 && refusedLbConfigKeyProblem(key).length > 0) {
        // A Higress-only key directly inside lb_config.
        ctx.error(shown, refusedLbConfigKeyProblem(key));
        ok = ctx.skipValue();
      } else if (isDocument && key == LB_CONFIG_KEY) {
        this.hasConfigKeys = true;
        this.lbConfigSeen = true;
        if (sc.token == JsonToken.ObjStart) {
          ok = this.parseObject("", shown, false);
        } else {
          ctx.wrongValue(shown, "an object");
          ok = ctx.skipValue();
        }
      } else {
        if (isDocument) {
          this.hasConfigKeys = true;
          this.plainTopKeys.push(shown);
        }
        const path = schemaPrefix.length == 0 ? key : schemaPrefix + "." + key;
        if (key.includes(".")) {
          // Not an alias of the nested key: it would slip past the duplicate check and the build's refusals.
          ctx.error(shown, "unknown key" + nestingHint(path));
          ok = ctx.skipValue();
        } else {
          ok = this.parseKey(path, shownRoot, shown);
        }
      }
      if (!ok) return false;
    }
    return false; // unreachable: every iteration costs a scanner step
  }

  private notInRule(shown: string): bool {
    this.ctx.error(shown, "not allowed inside a rule");
    return this.ctx.skipValue();
  }

  // The value of `_rules_` is current: an array of rule objects, each parsed into its own PickerConfig.
  private parseRules(shown: string): bool {
    const ctx = this.ctx;
    const sc = ctx.sc;
    this.rulesSeen = true;
    if (sc.token != JsonToken.ArrStart) {
      ctx.wrongValue(shown, "an array of rule objects");
      return ctx.skipValue();
    }
    let i = 0;
    while (true) {
      const t = sc.next();
      if (t == JsonToken.ArrEnd) return true;
      if (t >= JsonToken.End) return false;
      const at = shown + "[" + i.toString() + "]";
      i++;
      if (t != JsonToken.ObjStart) {
        ctx.wrongValue(at, "a rule object");
        if (!ctx.skipValue()) return false;
        continue;
      }
      const rule = new ConfigRule();
      const parser = new ConfigParser(rule.config, this.isStockEnvoy, ctx, at, rule, null);
      if (!parser.parseObject("", at, true)) return false;
      if (!rule.hasMatchers()) {
        ctx.error(
          at,
          "a rule needs a non-empty " + MATCH_ROUTE_KEY + ", " + MATCH_ROUTE_PREFIX_KEY + ", " + MATCH_DOMAIN_KEY +
            " or " + MATCH_SERVICE_KEY,
        );
      } else {
        const ignored = rule.classify();
        for (let k = 0; k < ignored.length; k++) {
          this.out.warnings.push(at + "." + ignored[k] + ": ignored, as Higress does, because the rule has a matcher of higher precedence (route, domain, service, route prefix)");
        }
      }
      parser.checkRelations();
      this.document!.rules.push(rule);
    }
    return false; // unreachable: every iteration costs a scanner step
  }

  // The value of the key at schema path `path` is current.
  private parseKey(path: string, shownRoot: string, shown: string): bool {
    const ctx = this.ctx;
    const sc = ctx.sc;
    if (path == REDIS_SECTION && this.isStockEnvoy) {
      ctx.error(shown, "only the Higress build can use Redis (its proxy_redis_init/proxy_redis_call host calls); stock Envoy has no Redis call, remove this key");
      this.rejected.add(path);
      return ctx.skipValue();
    }
    if (CONFIG_SECTIONS.includes(path)) {
      if (sc.token == JsonToken.ObjStart) return this.parseObject(path, shownRoot, false);
      ctx.wrongValue(shown, "an object");
      this.rejected.add(path);
      return ctx.skipValue();
    }
    if (path == ENDPOINTS_KEY) {
      const errorsBefore = ctx.errorCount;
      const ok = parseEndpoints(ctx, shown, this.isStockEnvoy, this.out, this.explicitMetricsPath);
      if (ctx.errorCount != errorsBefore) this.endpointsRejected = true;
      return ok;
    }
    const field = findField(path);
    if (field == null) {
      ctx.error(shown, "unknown key" + configKeySuggestion(path));
      return ctx.skipValue();
    }
    return this.parseField(field, shown);
  }

  private parseField(field: FieldSpec, shown: string): bool {
    const ctx = this.ctx;
    const sc = ctx.sc;
    const v = this.value;
    const t = sc.token;
    const kind = field.kind;
    let accepted = false;
    if (kind == FieldKind.Number || kind == FieldKind.Integer) {
      if (t == JsonToken.Number) {
        v.number = sc.numberValue();
        accepted = field.acceptsNumber(v.number);
      }
    } else if (kind == FieldKind.Boolean) {
      if (t == JsonToken.True || t == JsonToken.False) {
        v.flag = t == JsonToken.True;
        accepted = true;
      }
    } else if (t == JsonToken.String) {
      accepted = field.acceptsText(currentString(sc), v);
    }
    if (accepted) {
      v.target = field.target;
      field.set(this.out, v);
      if (field.path == "metrics.staleAfterMs") this.staleAfterGiven = true;
      if (!this.isStockEnvoy && STOCK_ONLY_KEYS.includes(field.path)) {
        this.out.warnings.push(shown + ": ignored by the Higress build, whose metrics come from the gateway's health check");
      }
    } else {
      // A credential is never echoed.
      if (kind == FieldKind.Text && field.format == TextFormat.Credential) ctx.error(shown, "expected " + field.expectation() + " (value not shown)");
      else ctx.wrongValue(shown, field.expectation());
      this.rejected.add(field.path);
    }
    return ctx.skipValue();
  }

  /** Checks that span several keys, after the whole document was read. */
  checkRelations(): void {
    const ctx = this.ctx;
    const out = this.out;
    const rejected = this.rejected;
    const lbLayout = this.lbPolicySeen || this.lbConfigSeen || this.lbTypeSeen;
    const base = this.base;
    const root = this.lbConfigSeen ? childPath(base, LB_CONFIG_KEY) : base;
    const shownPrefix = root.length == 0 ? "" : root + ".";

    if ((this.lbConfigSeen || this.lbTypeSeen) && !this.lbPolicySeen) {
      ctx.error(childPath(base, LB_POLICY_KEY), "required when " + (this.lbConfigSeen ? LB_CONFIG_KEY : LB_TYPE_KEY) + " is given");
    }
    if (lbLayout) {
      for (let i = 0; i < this.plainTopKeys.length; i++) {
        ctx.error(this.plainTopKeys[i], "not allowed next to lb_policy/lb_config (move it into lb_config)");
      }
    }

    if (!rejected.has("weights") && out.scoring.weightSum() == 0) {
      ctx.error(shownPrefix + "weights", "all weights are 0; at least one must be positive");
    }

    // The session signal reads only session.header (picker-stream.ts readSessionHash).
    const sessionWeight = out.scoring.weight("session");
    const sessionHeaderKnown = !rejected.has("session") && !rejected.has("session.header");
    if (sessionWeight > 0 && out.sessionHeader.length == 0 && sessionHeaderKnown) {
      ctx.error(
        shownPrefix + "weights.session",
        formatNumber(sessionWeight) + " has no effect without session.header (the request header that names the session)",
      );
    }
    // Warnings are logged only when the configuration is accepted, so a rejected value never shows here.
    if (sessionWeight == 0 && out.sessionHeader.length > 0) {
      out.warnings.push(shownPrefix + "session.header: unused while weights.session is 0 (set weights.session to use session affinity)");
    }
    if (out.metricPolicy == MetricPolicy.Default && out.targetMetric.length > 0) {
      out.warnings.push(shownPrefix + "target_metric: unused while metric_policy is \"default\" (set \"least\" or \"most\")");
    }

    if (
      out.metricPolicy != MetricPolicy.Default &&
      out.targetMetric.length == 0 &&
      !rejected.has("target_metric")
    ) {
      ctx.error(
        shownPrefix + "target_metric",
        "required when metric_policy is \"" + METRIC_POLICY_NAMES[out.metricPolicy] + "\"",
      );
    }

    if (out.redis.seen && !out.redis.enabled && !rejected.has("redis.cluster") && !rejected.has(REDIS_SECTION)) {
      ctx.error(shownPrefix + "redis.cluster", "required when any redis key is set (the Higress cluster of the Redis service)");
    }

    const endpointCount = out.endpoints.length;
    const discovery = out.discovery;
    const discoveryGiven = discovery.seen || rejected.has(DISCOVERY_SECTION);
    if (!this.isStockEnvoy && discovery.seen) {
      out.warnings.push(shownPrefix + DISCOVERY_SECTION + ": ignored by the Higress build, which takes the hosts from the gateway");
    }
    if (this.isStockEnvoy && discovery.seen) {
      for (let i = 0; i < DISCOVERY_REQUIRED.length; i++) {
        const key = DISCOVERY_REQUIRED[i];
        if (rejected.has(key)) continue;
        const missing = key == "discovery.cluster" ? discovery.cluster.length == 0
          : key == "discovery.servingCluster" ? discovery.servingCluster.length == 0 : discovery.metricsCluster.length == 0;
        if (missing) ctx.error(shownPrefix + key, "required when any discovery key is set (" + discoveryKeyPurpose(key) + ")");
      }
      if (endpointCount > 0 || this.endpointsRejected) {
        ctx.error(shownPrefix + ENDPOINTS_KEY, "not allowed with discovery (the endpoints are the hosts of discovery.servingCluster)");
      }
    }
    // A document with only `_rules_` needs no endpoints of its own (a rule always does).
    const usedAsIs = this.document === null || this.document!.hasDefault;
    if (this.isStockEnvoy && endpointCount == 0 && !this.endpointsRejected && !discoveryGiven && usedAsIs) {
      ctx.error(
        shownPrefix + ENDPOINTS_KEY,
        "required by the stock Envoy build: at least one {\"address\": \"ip:port\", \"metricsCluster\": \"...\"}, " +
          "or discovery (the hosts of an Envoy cluster, read from Envoy's admin /clusters)",
      );
    }
    if (endpointCount > out.maxEndpoints && !rejected.has("limits.maxEndpoints")) {
      ctx.error(
        shownPrefix + ENDPOINTS_KEY,
        endpointCount.toString() + " endpoints exceed limits.maxEndpoints (" + out.maxEndpoints.toString() + ")",
      );
    }

    // Polled metrics reach pollIntervalMs of age before the next poll lands (metrics-poller.ts stamps them
    // with the answer's time; envoy-platform.ts drops them past staleAfterMs). Unless given, the staleness follows
    // the interval: three polls and a timeout, at least the default.
    if (!this.staleAfterGiven) {
      const followed = 3 * <i64>out.pollIntervalMs + <i64>out.pollTimeoutMs;
      out.staleAfterMs = <i32>min<i64>(<i64>MAX_STALE_AFTER_MS, max<i64>(<i64>DEFAULT_STALE_AFTER_MS, followed));
    }
    if (
      this.isStockEnvoy &&
      out.staleAfterMs <= out.pollIntervalMs &&
      !rejected.has("metrics") &&
      !rejected.has("metrics.staleAfterMs") &&
      !rejected.has("metrics.pollIntervalMs")
    ) {
      ctx.error(
        shownPrefix + "metrics.staleAfterMs",
        out.staleAfterMs.toString() + " is not more than metrics.pollIntervalMs (" + out.pollIntervalMs.toString() +
          "): each endpoint's metrics would be ignored for part of every poll interval",
      );
    }

    if (
      !rejected.has("limits.maxEndpoints") &&
      !rejected.has("prefix.capacityPerEndpoint") &&
      !rejected.has("limits.maxIndexBytes")
    ) {
      this.checkIndexSize(shownPrefix);
    }

    // An endpoint without its own metricsPath uses metrics.path.
    for (let i = 0; i < endpointCount; i++) {
      if (i >= this.explicitMetricsPath.length || !this.explicitMetricsPath[i]) {
        out.endpoints[i].metricsPath = out.metricsPath;
      }
    }
  }

  private checkIndexSize(shownPrefix: string): void {
    const out = this.out;
    const sizes =
      "limits.maxEndpoints (" + out.maxEndpoints.toString() + ") * prefix.capacityPerEndpoint (" +
      out.capacityPerEndpoint.toString() + ")";
    const entries = <i64>out.maxEndpoints * <i64>out.capacityPerEndpoint;
    if (entries > <i64>PREFIX_INDEX_MAX_ENTRIES) {
      // PrefixIndex would silently shrink the capacity; refuse instead.
      this.ctx.error(
        shownPrefix + "prefix.capacityPerEndpoint",
        sizes + " = " + entries.toString() + " index entries, more than the index maximum of " +
          PREFIX_INDEX_MAX_ENTRIES.toString(),
      );
      return;
    }
    const bytes = PrefixIndex.bytesFor(out.maxEndpoints, out.capacityPerEndpoint);
    if (bytes > <u64>out.maxIndexBytes) {
      this.ctx.error(
        shownPrefix + "limits.maxIndexBytes",
        "the prefix index for " + sizes + " needs " + bytes.toString() + " bytes, more than the limit of " +
          out.maxIndexBytes.toString(),
      );
    }
  }

  /** The one-line message for a document that is not valid JSON. */
  jsonProblem(ptr: usize, len: usize): string {
    const sc = this.ctx.sc;
    const offset = (sc.pos - ptr).toString();
    if (sc.token == JsonToken.Budget) {
      return "JSON too large to read (more than " + CONFIG_MAX_STEPS.toString() + " tokens), stopped at byte " + offset;
    }
    if (sc.token == JsonToken.Error && sc.depth >= CONFIG_MAX_DEPTH && sc.pos < ptr + len) {
      const c = load<u8>(sc.pos);
      if (c == 0x7b || c == 0x5b) return "JSON nested deeper than " + CONFIG_MAX_DEPTH.toString() + " levels at byte " + offset;
    }
    return "invalid JSON at byte " + offset;
  }
}

/**
 * Parses and validates; fills `out` (start from defaults) and returns "" when valid, else one line naming every
 * bad field, e.g. `invalid plugin config: weights.queue: expected a number in [0, 1000], got -1; prefix.foo:
 * unknown key`. `isStockEnvoy` makes `endpoints` required (at least one) and validated; for the Higress build a
 * non-empty `endpoints` adds a warning and is ignored. `out` is reset to the defaults first; when the result is
 * not "" its contents are unspecified and must not be used.
 */
export function parseConfig(ptr: usize, len: usize, isStockEnvoy: bool, out: PluginConfig): string {
  out.reset();
  const parser = new ConfigParser(out, isStockEnvoy, new ParseContext(), "", null, out);
  if (!isBlank(ptr, len)) {
    if (!parser.parseDocument(ptr, len)) return ERROR_PREFIX + parser.jsonProblem(ptr, len);
  }
  const ctx = parser.ctx;
  if (!parser.notAnObject) {
    parser.checkRelations();
    if (!out.hasDefault && out.rules.length == 0) {
      ctx.error(RULES_KEY, "no rules and no default configuration: the picker would apply to no request");
    }
    if (ctx.errorCount == 0) checkTotalIndexSize(ctx, out);
  }
  return ctx.errorCount == 0 ? "" : ERROR_PREFIX + ctx.message();
}

/**
 * Every configuration in use (the default one, if any, and each rule) gets its own prefix index; together their
 * worst cases must fit within the largest limits.maxIndexBytes any of them sets.
 */
function checkTotalIndexSize(ctx: ParseContext, out: PluginConfig): void {
  const rules = out.rules;
  if (rules.length == 0) return;
  let total: u64 = 0;
  let limit: i64 = 0;
  if (out.hasDefault) {
    total += PrefixIndex.bytesFor(out.maxEndpoints, out.capacityPerEndpoint);
    limit = out.maxIndexBytes;
  }
  for (let i = 0; i < rules.length; i++) {
    const c = rules[i].config;
    total += PrefixIndex.bytesFor(c.maxEndpoints, c.capacityPerEndpoint);
    if (c.maxIndexBytes > limit) limit = c.maxIndexBytes;
  }
  if (total > <u64>limit) {
    const what = (out.hasDefault ? "the default configuration and " : "") + rules.length.toString() + " rule(s)";
    ctx.error(
      RULES_KEY,
      "the prefix indexes of " + what + " need " + total.toString() + " bytes together, more than the largest " +
        "limits.maxIndexBytes (" + limit.toString() + ")",
    );
  }
}
