// One entry of Higress's `_rules_` (a WasmPlugin matchRule): the requests it selects and the complete picker
// configuration they use instead of the default one (Higress replaces the default config; it does not merge).
import { PickerConfig } from "./picker-config";

export const RULES_KEY = "_rules_";
export const MATCH_ROUTE_KEY = "_match_route_";
export const MATCH_ROUTE_PREFIX_KEY = "_match_route_prefix_";
export const MATCH_DOMAIN_KEY = "_match_domain_";
export const MATCH_SERVICE_KEY = "_match_service_";

/**
 * Which matcher list selects a rule's requests. Like Higress's wasm-go RuleMatcher, a rule matches by one kind
 * only, chosen by the lists it has in this precedence; lists of a lower precedence are ignored.
 */
export enum RuleKind {
  /** `route_name` equals one of `_match_route_`. */
  Route = 0,
  /** `route_name` equals one of `_match_route_` and `cluster_name` matches one of `_match_service_`. */
  RouteAndService = 1,
  /** `:authority` (without port) matches one of `_match_domain_`. */
  Domain = 2,
  /** `cluster_name` matches one of `_match_service_`. */
  Service = 3,
  /** `route_name` starts with one of `_match_route_prefix_`. */
  RoutePrefix = 4,
}

export class ConfigRule {
  readonly routes: Array<string> = [];
  readonly routePrefixes: Array<string> = [];
  /** As configured: `*.suffix`, `prefix.*` or an exact host. */
  readonly domains: Array<string> = [];
  /** As configured: `fqdn` or `fqdn:port`. */
  readonly services: Array<string> = [];
  kind: i32 = RuleKind.Route;
  readonly config: PickerConfig = new PickerConfig();

  hasMatchers(): bool {
    return this.routes.length + this.routePrefixes.length + this.domains.length + this.services.length > 0;
  }

  /** Sets kind from the lists present (Higress's precedence); returns the names of the lists it ignores. */
  classify(): Array<string> {
    const ignored: Array<string> = [];
    if (this.routes.length > 0) {
      this.kind = this.services.length > 0 ? RuleKind.RouteAndService : RuleKind.Route;
      if (this.domains.length > 0) ignored.push(MATCH_DOMAIN_KEY);
      if (this.routePrefixes.length > 0) ignored.push(MATCH_ROUTE_PREFIX_KEY);
    } else if (this.domains.length > 0) {
      this.kind = RuleKind.Domain;
      if (this.services.length > 0) ignored.push(MATCH_SERVICE_KEY);
      if (this.routePrefixes.length > 0) ignored.push(MATCH_ROUTE_PREFIX_KEY);
    } else if (this.services.length > 0) {
      this.kind = RuleKind.Service;
      if (this.routePrefixes.length > 0) ignored.push(MATCH_ROUTE_PREFIX_KEY);
    } else {
      this.kind = RuleKind.RoutePrefix;
    }
    return ignored;
  }
}
