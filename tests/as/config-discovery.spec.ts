import { PluginConfig } from "../../assembly/config/plugin-config";
import { ONE_ENDPOINT, expectInvalid, expectMentions, higress, stock } from "./support/config-parse";

const DISCOVERY = '"discovery": {"cluster": "envoy_admin", "servingCluster": "vllm", "metricsCluster": "vllm_metrics"}';

describe("discovery.* (stock build: endpoints from Envoy's admin /clusters)", () => {
  it("is off by default, with the documented defaults", () => {
    const c = new PluginConfig();
    expect(stock("{" + ONE_ENDPOINT + "}", c)).toBe("");
    expect(c.discovery.enabled).toBe(false);
    expect(c.discovery.path).toBe("/clusters?format=json");
    expect(c.discovery.intervalMs).toBe(1000);
    expect(c.discovery.timeoutMs).toBe(800);
    expect(c.discovery.maxBodyBytes).toBe(1048576);
  });

  it("takes the place of endpoints in the stock build", () => {
    const c = new PluginConfig();
    const doc = '{"discovery": {"cluster": "envoy_admin", "servingCluster": "vllm", "metricsCluster": "vllm_metrics", ' +
      '"path": "/clusters?format=json&x=1", "intervalMs": 500, "timeoutMs": 300, "maxBodyBytes": 65536}}';
    expect(stock(doc, c)).toBe("");
    expect(c.discovery.enabled).toBe(true);
    expect(c.discovery.cluster).toBe("envoy_admin");
    expect(c.discovery.servingCluster).toBe("vllm");
    expect(c.discovery.metricsCluster).toBe("vllm_metrics");
    expect(c.discovery.path).toBe("/clusters?format=json&x=1");
    expect(c.discovery.intervalMs).toBe(500);
    expect(c.discovery.timeoutMs).toBe(300);
    expect(c.discovery.maxBodyBytes).toBe(65536);
    expect(c.endpoints.length).toBe(0);
  });

  it("requires its three clusters once any discovery key is set", () => {
    const m = stock('{"discovery": {"intervalMs": 500}}');
    expectInvalid(m);
    expectMentions(m, "discovery.cluster: required");
    expectMentions(m, "discovery.servingCluster: required");
    expectMentions(m, "discovery.metricsCluster: required");
  });

  it("is not combined with endpoints", () => {
    const m = stock("{" + ONE_ENDPOINT + ", " + DISCOVERY + "}");
    expectInvalid(m);
    expectMentions(m, "endpoints: not allowed with discovery");
  });

  it("names each bad field", () => {
    const m = stock('{"discovery": {"cluster": "", "servingCluster": "vllm", "metricsCluster": "m", "path": "clusters", "intervalMs": 10, "maxBodyBytes": 10, "port": 1}}');
    expectInvalid(m);
    expectMentions(m, "discovery.cluster: expected a cluster name");
    expectMentions(m, "discovery.path: expected a path");
    expectMentions(m, "discovery.intervalMs: expected an integer in [50, 60000]");
    expectMentions(m, "discovery.maxBodyBytes: expected an integer in [1024, 16777216]");
    expectMentions(m, "discovery.port: unknown key");
  });

  it("without endpoints or discovery, the stock build says it needs one of them", () => {
    const m = stock("{}");
    expectInvalid(m);
    expectMentions(m, "endpoints: required by the stock Envoy build");
    expectMentions(m, "or discovery");
  });

  it("is ignored by the Higress build, with a warning", () => {
    const c = new PluginConfig();
    expect(higress("{" + DISCOVERY + "}", c)).toBe("");
    expect(c.warnings.join("\n").includes("discovery: ignored by the Higress build")).toBe(true);
  });
});
