// The request header Envoy's override_host load-balancing policy reads. The plugin removes any client
// copy of it (whenever the request's headers show one, or cannot be read whole), so no client can choose a pod.
import { Utf8 } from "../abi/host";

export const OVERRIDE_HEADER = new Utf8("x-gateway-destination-endpoint");
