// Higress's `_rules_` (WasmPlugin matchRules): matchers, per-rule configurations validated like the top level,
// error paths, the default-config presence and the shared index-memory bound.
import { ConfigRule, RuleKind } from "../../assembly/config/config-rule";
import { PluginConfig } from "../../assembly/config/plugin-config";
import { ONE_ENDPOINT, expectInvalid, expectMentions, expectNotMentions, higress, stock } from "./support/config-parse";
import { PrefixIndex } from "../../assembly/prefix/prefix-index";

function rule(matcher: string, keys: string = ""): string {
  return "{" + matcher + (keys.length > 0 ? ", " + keys : "") + "}";
}

function kindOf(matchers: string): ConfigRule {
  const c = new PluginConfig();
  expect(higress('{"_rules_": [{' + matchers + "}]}", c)).toBe("");
  return c.rules[0];
}

const DEFAULT_LIMIT: i64 = 67108864;

function rules(n: i32, keys: string = ""): string {
  let s = "[";
  for (let i = 0; i < n; i++) s += (i > 0 ? ", " : "") + rule('"_match_route_": ["r' + i.toString() + '"]', keys);
  return s + "]";
}


describe("_rules_ parsing", () => {
  it("stores each rule's matchers and its own configuration, in order", () => {
    const c = new PluginConfig();
    const msg = higress(
      '{"weights": {"queue": 5}, "_rules_": [' +
        rule('"_match_route_": ["llm/chat", "llm/embed"]', '"weights": {"queue": 7}, "debug": {"header": true}') + ", " +
        rule('"_match_domain_": ["*.example.com", "api.*", "exact.host"]', '"lb_policy": "prefix_cache", "lb_config": {"weights": {"loraAffinity": 2}}') + ", " +
        rule('"_match_service_": ["vllm.llm.svc.cluster.local", "other.svc:8000"]') + ", " +
        rule('"_match_route_prefix_": ["llm/"]') +
        "]}",
      c,
    );
    expect(msg).toBe("");
    expect(c.hasDefault).toBe(true);
    expect(c.scoring.weight("queue")).toBe(5);
    expect(c.debugHeader).toBe(false);
    expect(c.rules.length).toBe(4);

    const r0 = c.rules[0];
    expect(r0.kind).toBe(RuleKind.Route);
    expect(r0.routes.join(",")).toBe("llm/chat,llm/embed");
    expect(r0.config.scoring.weight("queue")).toBe(7);
    expect(r0.config.debugHeader).toBe(true);

    const r1 = c.rules[1];
    expect(r1.kind).toBe(RuleKind.Domain);
    expect(r1.domains.join(",")).toBe("*.example.com,api.*,exact.host");
    expect(r1.config.lbPolicy).toBe("prefix_cache");
    expect(r1.config.scoring.weight("loraAffinity")).toBe(2);

    expect(c.rules[2].kind).toBe(RuleKind.Service);
    expect(c.rules[2].services.join(",")).toBe("vllm.llm.svc.cluster.local,other.svc:8000");
    expect(c.rules[3].kind).toBe(RuleKind.RoutePrefix);
    expect(c.rules[3].routePrefixes.join(",")).toBe("llm/");
    expect(c.warnings.length).toBe(0);
  });

  it("gives a rule the documented defaults, not the default configuration's values (Higress replaces)", () => {
    const c = new PluginConfig();
    const msg = higress(
      '{"weights": {"queue": 9, "session": 4}, "prefix": {"chunkChars": 64, "saltHeader": "x-tenant"},' +
        ' "session": {"header": "x-session"}, "debug": {"header": true}, "seed": 77,' +
        ' "_rules_": [{"_match_route_": ["r"]}]}',
      c,
    );
    expect(msg).toBe("");
    const r = c.rules[0].config;
    expect(r.scoring.weight("queue")).toBe(2);
    expect(r.scoring.weight("session")).toBe(0);
    expect(r.chunkChars).toBe(512);
    expect(r.saltHeader).toBe("");
    expect(r.sessionHeader).toBe("");
    expect(r.debugHeader).toBe(false);
    expect(r.seed).toBe(0);
  });

  it("accepts _rules_ next to lb_policy/lb_config", () => {
    const c = new PluginConfig();
    const msg = higress(
      '{"lb_policy": "kv_cache_aware", "lb_config": {"weights": {"queue": 3}}, "_rules_": [{"_match_route_": ["r"], "seed": 5}]}',
      c,
    );
    expect(msg).toBe("");
    expect(c.lbPolicy).toBe("kv_cache_aware");
    expect(c.scoring.weight("queue")).toBe(3);
    expect(c.rules[0].config.seed).toBe(5);
  });

  it("treats a document holding only _rules_ as having no default configuration", () => {
    const only = new PluginConfig();
    expect(higress('{"_rules_": [{"_match_route_": ["r"]}]}', only)).toBe("");
    expect(only.hasDefault).toBe(false);
    expect(only.rules.length).toBe(1);

    const withKey = new PluginConfig();
    expect(higress('{"seed": 1, "_rules_": [{"_match_route_": ["r"]}]}', withKey)).toBe("");
    expect(withKey.hasDefault).toBe(true);

    const empty = new PluginConfig();
    expect(higress("{}", empty)).toBe("");
    expect(empty.hasDefault).toBe(true);
    expect(empty.rules.length).toBe(0);
  });

  it("accepts an empty _rules_ only next to a default configuration", () => {
    expect(higress('{"seed": 1, "_rules_": []}')).toBe("");
    const msg = higress('{"_rules_": []}');
    expectInvalid(msg);
    expectMentions(msg, "_rules_: no rules and no default configuration");
  });
});

describe("_rules_ errors", () => {
  it("names a bad key inside a rule with the rule's index", () => {
    const msg = higress(
      '{"_rules_": [{"_match_route_": ["a"]}, {"_match_route_": ["b"], "weights": {"queue": -1}, "prefix": {"foo": 1}}]}',
    );
    expectInvalid(msg);
    expectMentions(msg, "_rules_[1].weights.queue: expected a number in [0, 1000], got -1");
    expectMentions(msg, "_rules_[1].prefix.foo: unknown key");
    expectNotMentions(msg, "_rules_[0]");
  });

  it("names errors of a rule in the lb_policy layout and its cross-field checks", () => {
    let msg = higress('{"_rules_": [{"_match_route_": ["a"], "lb_config": {"weights": {"queue": "x"}}}]}');
    expectMentions(msg, "_rules_[0].lb_config.weights.queue: expected a number in [0, 1000], got \"x\"");
    expectMentions(msg, "_rules_[0].lb_policy: required when lb_config is given");

    msg = higress('{"_rules_": [{"_match_route_": ["a"], "lb_policy": "prefix_cache", "seed": 1}]}');
    expectMentions(msg, "_rules_[0].seed: not allowed next to lb_policy/lb_config");

    msg = higress(
      '{"_rules_": [{"_match_route_": ["a"], "weights": {"queue": 0, "kvCache": 0, "prefixCache": 0, "inflight": 0, "loraAffinity": 0}}]}',
    );
    expectMentions(msg, "_rules_[0].weights: all weights are 0");

    msg = higress('{"_rules_": [{"_match_route_": ["a"], "lb_policy": "prefix_cache", "lb_config": {"metric_policy": "least"}}]}');
    expectMentions(msg, "_rules_[0].lb_config.target_metric: required when metric_policy is \"least\"");
  });

  it("rejects a rule without a non-empty matcher list", () => {
    let msg = higress('{"_rules_": [{"weights": {"queue": 1}}]}');
    expectInvalid(msg);
    expectMentions(msg, "_rules_[0]: a rule needs a non-empty _match_route_, _match_route_prefix_, _match_domain_ or _match_service_");
    msg = higress('{"_rules_": [{"_match_route_": ["a"]}, {"_match_domain_": []}]}');
    expectMentions(msg, "_rules_[1]: a rule needs a non-empty");
  });

  it("rejects unknown _match_ keys, bad matcher values and matchers outside a rule", () => {
    let msg = higress('{"_rules_": [{"_match_route_": ["a"], "_match_consumer_": ["c"]}]}');
    expectMentions(msg, "_rules_[0]._match_consumer_: unknown matcher (expected _match_route_, _match_route_prefix_, _match_domain_ or _match_service_)");
    msg = higress('{"_rules_": [{"_match_route_": "a"}]}');
    expectMentions(msg, "_rules_[0]._match_route_: expected an array of non-empty strings, got \"a\"");
    msg = higress('{"_rules_": [{"_match_route_": ["a", "", 3]}]}');
    expectMentions(msg, "_rules_[0]._match_route_[1]: expected a non-empty string, got \"\"");
    expectMentions(msg, "_rules_[0]._match_route_[2]: expected a non-empty string, got 3");
    msg = higress('{"_match_route_": ["a"]}');
    expectMentions(msg, "_match_route_: unknown key");
  });

  it("rejects a malformed _rules_ and nested or repeated _rules_", () => {
    let msg = higress('{"_rules_": {"_match_route_": ["a"]}}');
    expectMentions(msg, "_rules_: expected an array of rule objects, got an object");
    msg = higress('{"_rules_": [{"_match_route_": ["a"]}, 5]}');
    expectMentions(msg, "_rules_[1]: expected a rule object, got 5");
    msg = higress('{"_rules_": [{"_match_route_": ["a"], "_rules_": []}]}');
    expectMentions(msg, "_rules_[0]._rules_: not allowed inside a rule");
    msg = higress('{"_rules_": [{"_match_route_": ["a"]}], "_rules_": [{"_match_route_": ["b"]}]}');
    expectMentions(msg, "_rules_: duplicate key");
    msg = higress('{"_rules_": [{"_match_route_": ["a"], "_match_route_": ["b"]}]}');
    expectMentions(msg, "_rules_[0]._match_route_: duplicate key");
  });

  it("keeps the message on one line and stops at broken JSON inside a rule", () => {
    const msg = higress('{"_rules_": [{"_match_route_": ["a"], "weights": {');
    expectInvalid(msg);
    expectMentions(msg, "invalid JSON");
    expect(msg.includes("\n")).toBe(false);
  });
});

describe("_rules_ matcher precedence (Higress's wasm-go RuleMatcher)", () => {
  it("route wins; route with service needs both; then domain, service, route prefix", () => {
    expect(kindOf('"_match_route_": ["r"]').kind).toBe(RuleKind.Route);
    expect(kindOf('"_match_route_": ["r"], "_match_service_": ["s"]').kind).toBe(RuleKind.RouteAndService);
    expect(kindOf('"_match_route_": ["r"], "_match_domain_": ["d"]').kind).toBe(RuleKind.Route);
    expect(kindOf('"_match_domain_": ["d"], "_match_service_": ["s"]').kind).toBe(RuleKind.Domain);
    expect(kindOf('"_match_service_": ["s"], "_match_route_prefix_": ["p"]').kind).toBe(RuleKind.Service);
    expect(kindOf('"_match_route_prefix_": ["p"]').kind).toBe(RuleKind.RoutePrefix);
  });

  it("warns about a matcher list the precedence ignores", () => {
    const c = new PluginConfig();
    expect(higress('{"_rules_": [{"_match_route_": ["r"]}, {"_match_domain_": ["d"], "_match_route_prefix_": ["p"]}]}', c)).toBe("");
    expect(c.warnings.length).toBe(1);
    expectMentions(c.warnings[0], "_rules_[1]._match_route_prefix_: ignored");
    const both = new PluginConfig();
    expect(higress('{"_rules_": [{"_match_route_": ["r"], "_match_service_": ["s"]}]}', both)).toBe("");
    expect(both.warnings.length).toBe(0);
  });
});

describe("_rules_ on the stock Envoy build", () => {
  it("requires each rule's own endpoints, and top-level endpoints only with a default configuration", () => {
    let msg = stock("{" + ONE_ENDPOINT + ', "_rules_": [{"_match_route_": ["a"]}]}');
    expectMentions(msg, "_rules_[0].endpoints: required by the stock Envoy build");
    expectNotMentions(msg, "; endpoints:");

    const c = new PluginConfig();
    msg = stock(
      '{"_rules_": [{"_match_route_": ["a"], "endpoints": [{"address": "10.0.0.9:8000", "metricsCluster": "m", "metricsPath": "/m"}]}]}',
      c,
    );
    expect(msg).toBe("");
    expect(c.hasDefault).toBe(false);
    expect(c.endpoints.length).toBe(0);
    const e = c.rules[0].config.endpoints;
    expect(e.length).toBe(1);
    expect(e[0].address).toBe("10.0.0.9:8000");
    expect(e[0].metricsPath).toBe("/m");

    msg = stock('{"seed": 1, "_rules_": [{"_match_route_": ["a"], ' + ONE_ENDPOINT + "}]}");
    expectMentions(msg, "endpoints: required by the stock Envoy build");
    expectNotMentions(msg, "_rules_[0].endpoints");
  });

  it("the Higress build warns about a rule's endpoints under the rule's path", () => {
    const c = new PluginConfig();
    expect(higress('{"_rules_": [{"_match_route_": ["a"], ' + ONE_ENDPOINT + "}]}", c)).toBe("");
    const w = c.rules[0].config.warnings;
    expect(w.length).toBe(1);
    expectMentions(w[0], "_rules_[0].endpoints: ignored by the Higress build");
  });
});

describe("_rules_ index memory", () => {
  it("bounds the default configuration and all rules together by the largest limits.maxIndexBytes", () => {
    const each = <i64>PrefixIndex.bytesFor(64, 4096);
    const fit = <i32>(DEFAULT_LIMIT / each); // configurations of default size that fit together
    expect(fit).toBeGreaterThanOrEqual(2);
    // With a default configuration: it plus fit - 1 rules fit, one more does not.
    expect(higress('{"seed": 1, "_rules_": ' + rules(fit - 1) + "}")).toBe("");
    const msg = higress('{"seed": 1, "_rules_": ' + rules(fit) + "}");
    expectInvalid(msg);
    expectMentions(msg, "_rules_: the prefix indexes of the default configuration and " + fit.toString() + " rule(s) need " + ((<i64>fit + 1) * each).toString() + " bytes together");
    // Without one, only the rules count.
    expect(higress('{"_rules_": ' + rules(fit) + "}")).toBe("");
    expectMentions(higress('{"_rules_": ' + rules(fit + 1) + "}"), "_rules_: the prefix indexes of " + (fit + 1).toString() + " rule(s)");
    // A larger limit set by any of them raises the bound.
    expect(higress('{"seed": 1, "limits": {"maxIndexBytes": 1073741824}, "_rules_": ' + rules(fit) + "}")).toBe("");
  });

  it("checks each rule's index against its own limit, under the rule's path", () => {
    const msg = higress('{"_rules_": [{"_match_route_": ["a"], "limits": {"maxIndexBytes": 1048576}}]}');
    expectMentions(msg, "_rules_[0].limits.maxIndexBytes: the prefix index for limits.maxEndpoints (64)");
  });

  it("counts small rules by their own sizes", () => {
    const small = '"prefix": {"capacityPerEndpoint": 16}, "limits": {"maxEndpoints": 4}';
    const n = 200;
    expect(higress('{"_rules_": ' + rules(n, small) + "}")).toBe("");
  });
});
