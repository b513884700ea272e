import { PluginConfig } from "../../assembly/config/plugin-config";
import { ONE_ENDPOINT, expectInvalid, expectMentions, expectNotMentions, higress, stock } from "./support/config-parse";

describe("redis.* (replica-shared hints)", () => {
  it("is off by default, with the documented defaults", () => {
    const c = new PluginConfig();
    expect(higress("{}", c)).toBe("");
    expect(c.redis.enabled).toBe(false);
    expect(c.redis.cluster).toBe("");
    expect(c.redis.username).toBe("");
    expect(c.redis.password).toBe("");
    expect(c.redis.timeoutMs).toBe(20);
    expect(c.redis.keyPrefix).toBe("epp:");
    expect(c.redis.ttlMs).toBe(600000);
  });

  it("takes every key in the Higress build", () => {
    const c = new PluginConfig();
    const doc = '{"redis": {"cluster": "outbound|6379||redis.default.svc.cluster.local", "username": "u", "password": "p w", "timeoutMs": 35, "keyPrefix": "kv:", "ttlMs": 120000}}';
    expect(higress(doc, c)).toBe("");
    expect(c.redis.enabled).toBe(true);
    expect(c.redis.cluster).toBe("outbound|6379||redis.default.svc.cluster.local");
    expect(c.redis.username).toBe("u");
    expect(c.redis.password).toBe("p w");
    expect(c.redis.timeoutMs).toBe(35);
    expect(c.redis.keyPrefix).toBe("kv:");
    expect(c.redis.ttlMs).toBe(120000);
  });

  it("is refused by the stock Envoy build, with a message naming the key", () => {
    const m = stock('{' + ONE_ENDPOINT + ', "redis": {"cluster": "outbound|6379||redis"}}');
    expectInvalid(m);
    expectMentions(m, "redis: only the Higress build");
  });

  it("names each bad field", () => {
    const m = higress('{"redis": {"cluster": "", "timeoutMs": 0, "ttlMs": 10, "keyPrefix": "has space", "port": 1}}');
    expectInvalid(m);
    expectMentions(m, "redis.cluster: expected a cluster name");
    expectMentions(m, "redis.timeoutMs: expected an integer in [1, 10000]");
    expectMentions(m, "redis.ttlMs: expected an integer in [1000, 86400000]");
    expectMentions(m, "redis.keyPrefix: expected");
    expectMentions(m, "redis.port: unknown key");
  });

  it("requires redis.cluster when any redis key is set", () => {
    const m = higress('{"redis": {"timeoutMs": 30}}');
    expectInvalid(m);
    expectMentions(m, "redis.cluster: required");
  });

  it("never echoes a password", () => {
    let long = "";
    for (let i = 0; i < 1100; i++) long += "s";
    const m = higress('{"redis": {"cluster": "c", "password": "' + long + '"}}');
    expectInvalid(m);
    expectMentions(m, "redis.password");
    expectNotMentions(m, "ssssssss");
  });
});
