// A request name that gateways serve under two paths: Higress's Envoy at the top level (`route_name`,
// `cluster_name`, as wasm-go's RuleMatcher reads them), stock Envoy since 1.33 only under `xds` (`xds.route_name`,
// `xds.cluster_name`: the top-level tokens were dropped from wasm/context.cc PROPERTY_TOKENS). The path that
// answered last is asked first, so a request costs one host read once the gateway is known.
import { getProperty, propertyPath, Returned } from "../abi/host";
import { Status } from "../abi/types";

export class NameProperty {
  private readonly topLevel: ArrayBuffer;
  private readonly underXds: ArrayBuffer;
  private xdsFirst: bool = false;

  constructor(name: string) {
    this.topLevel = propertyPath([name]);
    this.underXds = propertyPath(["xds", name]);
  }

  /** Reads the name into `out`; returns the host status of the path that answered, or of the last one asked. */
  read(out: Returned): i32 {
    const s = getProperty(this.xdsFirst ? this.underXds : this.topLevel, out);
    if (s == Status.Ok) return s;
    const other = getProperty(this.xdsFirst ? this.topLevel : this.underXds, out);
    if (other == Status.Ok) this.xdsFirst = !this.xdsFirst;
    return other;
  }
}
