// Why a request was left to the gateway's own load balancer (a fail-open). Each reason has a counter.
export namespace Fallback {
  export const None: i32 = 0;
  export const Method: i32 = 1;
  export const ContentType: i32 = 2;
  export const ContentLength: i32 = 3;
  export const BodyTooLarge: i32 = 4;
  export const ContentEncoding: i32 = 5;
  export const Upgrade: i32 = 6;
  export const InvalidJson: i32 = 7;
  export const MissingModel: i32 = 8;
  export const BodyUnavailable: i32 = 9;
  export const HostsUnavailable: i32 = 10;
  export const NoEndpoints: i32 = 11;
  export const NoHealthyEndpoint: i32 = 12;
  export const OverrideFailed: i32 = 13;
  export const NotConfigured: i32 = 14;
  export const BodyNotDelivered: i32 = 15;
  export const Count: i32 = 16;
}

export const FALLBACK_NAMES: StaticArray<string> = [
  "none",
  "method",
  "content_type",
  "content_length",
  "body_too_large",
  "content_encoding",
  "upgrade",
  "invalid_json",
  "missing_model",
  "body_unavailable",
  "hosts_unavailable",
  "no_endpoints",
  "no_healthy_endpoint",
  "override_failed",
  "not_configured",
  "body_not_delivered",
];
