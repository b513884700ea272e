import { AdminClusterHosts } from "../../assembly/endpoints/admin-clusters";
import { FREE, MemberSlots, memberListBytes } from "../../assembly/platform/member-slots";

let held: ArrayBuffer = new ArrayBuffer(0);

/** An admin answer listing `hosts` ("ip:port" or "ip:port!" for one failing its health check) in cluster vllm. */
function answer(hosts: Array<string>): AdminClusterHosts {
  const parts = new Array<string>();
  for (let i = 0; i < hosts.length; i++) {
    const failing = hosts[i].endsWith("!");
    const a = failing ? hosts[i].slice(0, hosts[i].length - 1) : hosts[i];
    const colon = a.lastIndexOf(":");
    const health = failing ? '{"failed_active_health_check": true, "eds_health_status": "HEALTHY"}' : '{"eds_health_status": "HEALTHY"}';
    parts.push('{"address": {"socket_address": {"address": "' + a.slice(0, colon) + '", "port_value": ' + a.slice(colon + 1) +
      '}}, "health_status": ' + health + "}");
  }
  held = String.UTF8.encode('{"cluster_statuses": [{"name": "vllm", "host_statuses": [' + parts.join(", ") + "]}]}");
  const h = new AdminClusterHosts(16);
  h.parse(changetype<usize>(held), <usize>held.byteLength, "vllm");
  return h;
}

/** Per slot "address@generation" (a failing member marked "!"), "-" for a free one. */
function slots(m: MemberSlots): string {
  const out = new Array<string>();
  for (let s = 0; s < m.used; s++) {
    if (m.state(s) == FREE) {
      out.push("-");
      continue;
    }
    out.push(String.UTF8.decodeUnsafe(m.addressPtr(s), <usize>m.addressLen(s)) + (m.state(s) == 1 ? "" : "!") + "@" + m.generation(s).toString());
  }
  return out.join(",");
}

/** Publishes m and reads it back into a new list, as another worker would. */
function roundTrip(m: MemberSlots): MemberSlots {
  const buf = new ArrayBuffer(memberListBytes(m.capacity));
  const len = m.encode(changetype<usize>(buf));
  const r = new MemberSlots(m.capacity, 16);
  expect(r.decode(changetype<usize>(buf), <usize>len)).toBe(true);
  return r;
}

describe("MemberSlots (the discovered members' stable slots)", () => {
  it("gives joiners the lowest free slots and keeps a member's slot while it stays", () => {
    const m = new MemberSlots(4, 16);
    expect(m.assign(answer(["10.0.0.1:80", "10.0.0.2:80"]))).toBe(0);
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.2:80@2");
    // Listed in another order, with a joiner first: members keep their slots.
    expect(m.assign(answer(["10.0.0.3:80", "10.0.0.2:80", "10.0.0.1:80"]))).toBe(0);
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.2:80@2,10.0.0.3:80@3");
  });

  it("reuses a departed member's slot for the next joiner, under a new generation", () => {
    const m = new MemberSlots(3, 16);
    m.assign(answer(["10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80"]));
    // The pod in slot 1 restarts at a new IP: its slot goes to the new pod, not a fourth one.
    m.assign(answer(["10.0.0.1:80", "10.0.0.3:80"]));
    expect(slots(m)).toBe("10.0.0.1:80@1,-,10.0.0.3:80@3");
    m.assign(answer(["10.0.0.1:80", "10.0.0.3:80", "10.0.0.9:80"]));
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.9:80@4,10.0.0.3:80@3");
    // The same address back in a freed slot is a new member too.
    m.assign(answer(["10.0.0.1:80", "10.0.0.3:80"]));
    m.assign(answer(["10.0.0.1:80", "10.0.0.3:80", "10.0.0.9:80"]));
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.9:80@5,10.0.0.3:80@3");
  });

  it("never holds more than its capacity, whatever comes and goes", () => {
    const m = new MemberSlots(2, 16);
    expect(m.assign(answer(["10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80"]))).toBe(1);
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.2:80@2");
    for (let i = 10; i < 60; i++) {
      m.assign(answer(["10.0.0.1:80", "10.0.1." + i.toString() + ":80"]));
      expect(m.used).toBeLessThanOrEqual(2);
    }
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.1.59:80@52");
  });

  it("keeps a member failing its health check in its slot, flagged, with its generation", () => {
    const m = new MemberSlots(4, 16);
    m.assign(answer(["10.0.0.1:80", "10.0.0.2:80"]));
    m.assign(answer(["10.0.0.1:80!", "10.0.0.2:80"]));
    expect(slots(m)).toBe("10.0.0.1:80!@1,10.0.0.2:80@2");
    m.assign(answer(["10.0.0.1:80", "10.0.0.2:80"]));
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.2:80@2");
  });

  it("reads back what it publishes, so a new holder continues the list", () => {
    const m = new MemberSlots(4, 16);
    m.assign(answer(["10.0.0.1:80", "10.0.0.2:80!", "fd00::7:8000"]));
    m.assign(answer(["10.0.0.2:80!", "fd00::7:8000"]));
    const r = roundTrip(m);
    expect(slots(r)).toBe("-,10.0.0.2:80!@2,[fd00::7]:8000@3");
    r.assign(answer(["10.0.0.2:80", "fd00::7:8000", "10.0.0.4:80"]));
    expect(slots(r)).toBe("10.0.0.4:80@4,10.0.0.2:80@2,[fd00::7]:8000@3");
  });

  it("keeps whether Envoy excludes a member (pending its first check) through assign and publication", () => {
    const held2 = String.UTF8.encode('{"cluster_statuses": [{"name": "vllm", "host_statuses": [' +
      '{"address": {"socket_address": {"address": "10.0.0.1", "port_value": 80}}, "health_status": {"eds_health_status": "HEALTHY"}}, ' +
      '{"address": {"socket_address": {"address": "10.0.0.2", "port_value": 80}}, "health_status": ' +
      '{"failed_active_health_check": true, "pending_active_hc": true}}, ' +
      '{"address": {"socket_address": {"address": "10.0.0.3", "port_value": 80}}, "health_status": ' +
      '{"failed_active_health_check": true, "excluded_via_immediate_hc_fail": true}}, ' +
      '{"address": {"socket_address": {"address": "10.0.0.4", "port_value": 80}}, "health_status": ' +
      '{"failed_active_health_check": true}}]}]}');
    const h = new AdminClusterHosts(16);
    expect(h.parse(changetype<usize>(held2), <usize>held2.byteLength, "vllm")).toBe(true);
    const m = new MemberSlots(4, 16);
    m.assign(h);
    const r = roundTrip(m);
    for (let s = 0; s < 4; s++) {
      const want = s == 1 || s == 2;
      expect(m.excluded(s)).toBe(want, s.toString());
      expect(r.excluded(s)).toBe(want, "read back " + s.toString());
    }
    // The first check passed: no longer excluded, same slot and generation.
    m.assign(answer(["10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80!", "10.0.0.4:80!"]));
    expect(m.excluded(1)).toBe(false);
    expect(m.excluded(2)).toBe(false);
    expect(slots(m)).toBe("10.0.0.1:80@1,10.0.0.2:80@2,10.0.0.3:80!@3,10.0.0.4:80!@4");
  });

  it("refuses a list of another version, size or shape, keeping what it held", () => {
    const m = new MemberSlots(2, 16);
    m.assign(answer(["10.0.0.1:80"]));
    const buf = new ArrayBuffer(memberListBytes(4));
    const len = m.encode(changetype<usize>(buf));
    const r = new MemberSlots(2);
    r.assign(answer(["10.0.0.5:80"]));
    const p = changetype<usize>(buf);
    // Version 1: addresses one a line.
    const v1 = String.UTF8.encode("\x01\x00\x00\x0010.0.0.1:80\n");
    expect(r.decode(changetype<usize>(v1), <usize>v1.byteLength)).toBe(false);
    expect(r.decode(p, <usize>len - 1)).toBe(false);
    store<u32>(p, 3, 4);
    expect(r.decode(p, <usize>len)).toBe(false);
    store<u32>(p, 1, 4);
    store<u8>(p, 9, 12);
    expect(r.decode(p, <usize>len)).toBe(false);
    expect(slots(r)).toBe("10.0.0.5:80@1");
  });
});
