// Every configuration example of Higress's ai-load-balancer README (alibaba/higress plugins/wasm-go/
// extensions/ai-load-balancer/README_EN.md, and the least_busy example of its earlier versions) either loads
// into the Higress build or is refused at configure time with a log line saying what to write instead
// (assembly/config/higress-migration.ts, parse-config.ts ConfigParser).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { pickerHost } from "../../support/picker.ts";

const EXAMPLES: Array<{ name: string; yaml: string; refused?: RegExp[] }> = [
  {
    name: "global_least_request",
    yaml: "lb_type: endpoint\nlb_policy: global_least_request\nlb_config:\n  serviceFQDN: redis.static\n  servicePort: 6379\n  username: default\n  password: '123456'\n",
    refused: [/lb_policy: .*write lb_policy "endpoint_metrics"/, /lb_config\.serviceFQDN: .*remove the Redis keys/],
  },
  {
    name: "prefix_cache",
    yaml: "lb_type: endpoint\nlb_policy: prefix_cache\nlb_config:\n  serviceFQDN: redis.static\n  servicePort: 6379\n  username: default\n  password: '123456'\n",
    refused: [/lb_config\.servicePort: .*remove the Redis keys from lb_config/],
  },
  { name: "metrics_based default", yaml: "lb_type: endpoint\nlb_policy: metrics_based\nlb_config:\n  metric_policy: default\n  rate_limit: 0.6\n" },
  {
    name: "metrics_based least waiting",
    yaml: "lb_type: endpoint\nlb_policy: metrics_based\nlb_config:\n  metric_policy: least\n  target_metric: vllm:num_requests_waiting\n  rate_limit: 0.6\n",
  },
  {
    name: "metrics_based least running",
    yaml: "lb_type: endpoint\nlb_policy: metrics_based\nlb_config:\n  metric_policy: least\n  target_metric: vllm:num_requests_running\n  rate_limit: 0.6\n",
  },
  {
    name: "cluster_metrics",
    yaml: "lb_type: cluster\nlb_policy: cluster_metrics\nlb_config:\n  mode: LeastTotalLatency\n  rate_limit: 0.6\n  service_list:\n  - outbound|80||test-1.dns\n  - outbound|80||test-2.static\n",
    refused: [/lb_type: .*write lb_type "endpoint"/, /lb_config\.service_list: a cluster_metrics key/],
  },
  {
    name: "least_busy (earlier README)",
    yaml: "lb_policy: least_busy\nlb_config:\n  criticalModels:\n  - meta-llama/Llama-2-7b-hf\n  - sql-lora\n",
    refused: [/lb_config\.criticalModels: not supported: .*remove it/],
  },
];

for (const ex of EXAMPLES) {
  test(`Higress README example "${ex.name}" ${ex.refused ? "is refused with what to write instead" : "loads"}`, () => {
    const logs: string[] = [];
    const config = parse(ex.yaml);
    if (!ex.refused) {
      const h = pickerHost({ flavor: "higress", config, log: (_l, m) => logs.push(m) });
      h.setPods([{ address: "10.0.4.1:8000" }, { address: "10.0.4.2:8000", waiting: 9 }]);
      assert.ok(h.host.workers.length > 0);
      return;
    }
    assert.throws(() => pickerHost({ flavor: "higress", config, log: (_l, m) => logs.push(m) }));
    const line = logs.find((m) => m.includes("invalid plugin config"));
    assert.ok(line, logs.join("\n"));
    for (const re of ex.refused) assert.match(line, re);
    assert.ok(!line.includes("unknown key"), line);
  });
}
