// Envoy's response flags as the `response.flags` property serves them: a bit mask (envoy stream_info.h ResponseFlag;
// Envoy 1.30+ serves the same bits through StreamInfo::legacyResponseFlags(), filters/common/expr/context.cc
// ResponseLookupValues Flags), keyed here by the short names access logs print (%RESPONSE_FLAGS%). A filter's local
// reply sets no flag.
export const RESPONSE_FLAG_BITS: Readonly<Record<string, number>> = {
  UH: 0x2, // NoHealthyUpstream
  UT: 0x4, // UpstreamRequestTimeout
  UF: 0x20, // UpstreamConnectionFailure
  UC: 0x40, // UpstreamConnectionTermination
  DC: 0x4000, // DownstreamConnectionTermination
  SI: 0x10000, // StreamIdleTimeout
  DPE: 0x40000, // DownstreamProtocolError
};
