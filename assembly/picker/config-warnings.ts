// The warnings of a configuration and its rules, logged at configure time: the first REPORTED_ERRORS of them, then
// how many more, as the error line names the first bad fields (a document of many rules can hold thousands).
import { log } from "../abi/host";
import { LogLevel } from "../abi/types";
import { PluginConfig } from "../config/plugin-config";
import { REPORTED_ERRORS } from "../config/parse-context";

export function logConfigWarnings(config: PluginConfig): void {
  let shown = logSome(config.warnings, 0);
  let total = config.warnings.length;
  const rules = config.rules;
  for (let i = 0; i < rules.length; i++) {
    const warnings = rules[i].config.warnings;
    shown = logSome(warnings, shown);
    total += warnings.length;
  }
  if (total > shown) log(LogLevel.Warn, "endpoint-picker: and " + (total - shown).toString() + " more warnings");
}

// Logs warnings while fewer than REPORTED_ERRORS are shown; returns how many are shown then.
function logSome(warnings: Array<string>, shown: i32): i32 {
  for (let i = 0; i < warnings.length && shown < REPORTED_ERRORS; i++, shown++) {
    log(LogLevel.Warn, "endpoint-picker: " + warnings[i]);
  }
  return shown;
}
