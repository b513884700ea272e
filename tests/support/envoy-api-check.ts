// Checks a YAML/JSON Envoy config object against ENVOY_MESSAGES the way Envoy's loader would reject it: an
// unknown field, a typed_config whose @type names no such message, a value of the wrong kind, an enum value that
// does not exist, a required field left out. A deprecated field is reported too: Envoy still loads it, with a
// warning. A field the table lists but gives no kind for is reported too, so a new field in an example gets its kind
// (and sub-message) added here rather than passing unchecked.
import { ENVOY_MESSAGES, type MessageSchema } from "./envoy-api-messages.ts";

const TYPE_URL = "type.googleapis.com/";
const DURATION = /^-?\d+(\.\d{1,9})?s$/;

export interface CheckOptions {
  /** Fields a fork adds to a message (Higress: store_metrics on HealthCheck), by message name. */
  extraFields?: Record<string, Record<string, string>>;
  /** Skip the top message's required fields (an EnvoyFilter MERGE patch sets a few fields of a Cluster). */
  partial?: boolean;
}

export function envoyConfigErrors(value: unknown, message: string, options: CheckOptions = {}): string[] {
  const errors: string[] = [];
  checkMessage(value, message, message, options, errors, options.partial ?? false);
  return errors;
}

function checkMessage(value: unknown, message: string, path: string, o: CheckOptions, errors: string[], partial: boolean): void {
  const schema: MessageSchema | undefined = ENVOY_MESSAGES[message];
  if (!schema) return void errors.push(`${path}: message ${message} is not in the table`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return void errors.push(`${path}: ${message} must be an object`);
  const obj = value as Record<string, unknown>;
  const extra = o.extraFields?.[message] ?? {};
  for (const [key, v] of Object.entries(obj)) {
    if (!schema.fields.includes(key) && !(key in extra)) {
      errors.push(`${path}.${key}: ${message} (${schema.proto}) has no field ${key}`);
      continue;
    }
    if (schema.deprecated?.includes(key)) errors.push(`${path}.${key}: ${message}.${key} is deprecated (${schema.proto})`);
    const kind = schema.types[key] ?? extra[key];
    if (!kind) errors.push(`${path}.${key}: no kind for ${message}.${key} in envoy-api-messages.ts`);
    else checkField(v, kind, `${path}.${key}`, o, errors);
  }
  if (partial) return;
  for (const req of schema.required ?? []) {
    if (!req.split("|").some((f) => obj[f] !== undefined && obj[f] !== "" && !(Array.isArray(obj[f]) && obj[f].length === 0))) {
      errors.push(`${path}: ${message} requires ${req.replace(/\|/g, " or ")}`);
    }
  }
}

function checkField(v: unknown, kind: string, path: string, o: CheckOptions, errors: string[]): void {
  if (kind.endsWith("[]")) {
    if (!Array.isArray(v)) return void errors.push(`${path}: must be a list`);
    v.forEach((item, i) => checkField(item, kind.slice(0, -2), `${path}[${i}]`, o, errors));
    return;
  }
  if (kind.startsWith("enum:")) {
    if (!kind.slice(5).split("|").includes(v as string)) errors.push(`${path}: ${JSON.stringify(v)} is not one of ${kind.slice(5)}`);
    return;
  }
  switch (kind) {
    case "string":
      if (typeof v !== "string") errors.push(`${path}: must be a string`);
      return;
    case "bool":
      if (typeof v !== "boolean") errors.push(`${path}: must be true or false`);
      return;
    case "uint32":
      if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 0xffffffff) errors.push(`${path}: ${JSON.stringify(v)} is not a uint32`);
      return;
    case "Duration":
      if (typeof v !== "string" || !DURATION.test(v)) errors.push(`${path}: ${JSON.stringify(v)} is not a duration such as "1.5s"`);
      return;
    case "Any":
      return checkAny(v, path, o, errors);
    default:
      return checkMessage(v, kind, path, o, errors, false);
  }
}

function checkAny(v: unknown, path: string, o: CheckOptions, errors: string[]): void {
  const typeUrl = (v as Record<string, unknown> | null)?.["@type"];
  if (typeof typeUrl !== "string" || !typeUrl.startsWith(TYPE_URL)) return void errors.push(`${path}: an Any needs "@type": "${TYPE_URL}<message>"`);
  const { "@type": _, ...rest } = v as Record<string, unknown>;
  const message = typeUrl.slice(TYPE_URL.length);
  if (message === "google.protobuf.StringValue") {
    if (Object.keys(rest).join() !== "value" || typeof rest.value !== "string") errors.push(`${path}: a StringValue holds exactly one string "value"`);
    return;
  }
  checkMessage(rest, message, `${path}<${message}>`, o, errors, false);
}
