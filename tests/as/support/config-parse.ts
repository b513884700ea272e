// Helpers shared by the configuration specs: parse a JSON document for either build, and check the one-line
// error message.
import { PluginConfig } from "../../../assembly/config/plugin-config";
import { parseConfig } from "../../../assembly/config/parse-config";

// Keeps the encoded document alive while parseConfig reads it.
let held: ArrayBuffer = new ArrayBuffer(0);

export function parse(doc: string, stock: bool, out: PluginConfig): string {
  held = String.UTF8.encode(doc);
  return parseConfig(changetype<usize>(held), <usize>held.byteLength, stock, out);
}

/** Result of parsing doc for the Higress build (no endpoints required). */
export function higress(doc: string, out: PluginConfig = new PluginConfig()): string {
  return parse(doc, false, out);
}

/** Result of parsing doc for the stock Envoy build. */
export function stock(doc: string, out: PluginConfig = new PluginConfig()): string {
  return parse(doc, true, out);
}

export const ONE_ENDPOINT = '"endpoints": [{"address": "10.0.0.1:8000", "metricsCluster": "vllm"}]';

export function expectMentions(message: string, part: string): void {
  expect(message.includes(part)).toBe(true, "expected «" + part + "» in «" + message + "»");
}

export function expectNotMentions(message: string, part: string): void {
  expect(message.includes(part)).toBe(false, "did not expect «" + part + "» in «" + message + "»");
}

export function expectInvalid(message: string): void {
  expect(message.startsWith("invalid plugin config: ")).toBe(true, message);
  expect(message.includes("\n")).toBe(false, message);
}
