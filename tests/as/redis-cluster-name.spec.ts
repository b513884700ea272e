import { redisClusterWireName } from "../../assembly/replica/redis-cluster-name";

describe("redisClusterWireName", () => {
  it("asks Higress to send every command at once", () => {
    expect(redisClusterWireName("outbound|6379||redis.default.svc.cluster.local")).toBe(
      "outbound|6379||redis.default.svc.cluster.local?buffer_flush_timeout=0&max_buffer_size_before_flush=0",
    );
  });

  it("keeps the options the configured name has and adds the others after them", () => {
    expect(redisClusterWireName("redis?db=2")).toBe("redis?db=2&buffer_flush_timeout=0&max_buffer_size_before_flush=0");
    expect(redisClusterWireName("redis?buffer_flush_timeout=5")).toBe("redis?buffer_flush_timeout=5&max_buffer_size_before_flush=0");
    expect(redisClusterWireName("redis?db=1&max_buffer_size_before_flush=64&buffer_flush_timeout=1")).toBe(
      "redis?db=1&max_buffer_size_before_flush=64&buffer_flush_timeout=1",
    );
    expect(redisClusterWireName("redis?")).toBe("redis?buffer_flush_timeout=0&max_buffer_size_before_flush=0");
    expect(redisClusterWireName("redis?db=1&")).toBe("redis?db=1&buffer_flush_timeout=0&max_buffer_size_before_flush=0");
  });

  it("matches whole option names only", () => {
    expect(redisClusterWireName("redis?xbuffer_flush_timeout=9")).toBe(
      "redis?xbuffer_flush_timeout=9&buffer_flush_timeout=0&max_buffer_size_before_flush=0",
    );
  });
});
