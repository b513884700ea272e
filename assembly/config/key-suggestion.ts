// For an unknown configuration key, the known key it most likely meant: the same letters in another case or with
// "_" or "-" between the words (`kvcache`, `kv_cache`, `KvCache` for `kvCache`), the usual slip in a hand-written
// YAML or JSON configuration. Configure time only.
import { CONFIG_SECTIONS, ENDPOINTS_KEY, configFields } from "./config-schema";
import { REDIS_FIELDS } from "./redis-section";
import { DISCOVERY_FIELDS } from "./discovery-section";

/** Longer keys are not compared (folding costs their length). */
const MAX_COMPARED_LENGTH = 256;

/** ASCII letters lower-cased, "_" and "-" left out. */
function folded(key: string): string {
  let out = "";
  for (let i = 0; i < key.length; i++) {
    let c = key.charCodeAt(i);
    if (c == 0x5f || c == 0x2d) continue;
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    out += String.fromCharCode(c);
  }
  return out;
}

/** ` (did you mean "<known>"?)` when `key` folds to one of `known`, else "". */
export function suggestionAmong(key: string, known: Array<string>): string {
  if (key.length > MAX_COMPARED_LENGTH) return "";
  const want = folded(key);
  for (let i = 0; i < known.length; i++) {
    if (known[i] != key && folded(known[i]) == want) return " (did you mean \"" + known[i] + "\"?)";
  }
  return "";
}

/** The same for a configuration key at schema path `path` ("weights.kvcache"), among every key the parser knows. */
export function configKeySuggestion(path: string): string {
  const known = new Array<string>();
  const fields = configFields();
  for (let i = 0; i < fields.length; i++) known.push(fields[i].path);
  for (let i = 0; i < REDIS_FIELDS.length; i++) known.push(REDIS_FIELDS[i].path);
  for (let i = 0; i < DISCOVERY_FIELDS.length; i++) known.push(DISCOVERY_FIELDS[i].path);
  for (let i = 0; i < CONFIG_SECTIONS.length; i++) known.push(CONFIG_SECTIONS[i]);
  known.push(ENDPOINTS_KEY);
  return suggestionAmong(path, known);
}
