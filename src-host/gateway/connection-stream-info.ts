// What a stream on a client connection tells the plugin about that connection (source.*, destination.*,
// connection.id, request.protocol properties), as Envoy's stream info takes it from the downstream connection.
import type { Socket } from "node:net";
import type { StreamInfo } from "../host/stream.ts";

export function connectionStreamInfo(clusterName: string, socket: Socket, connectionId: number, protocol: string): StreamInfo {
  return {
    clusterName,
    sourceAddress: socket.remoteAddress,
    sourcePort: socket.remotePort,
    destinationAddress: socket.localAddress,
    destinationPort: socket.localPort,
    protocol,
    connectionId,
  };
}
