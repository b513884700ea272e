// The whole plugin configuration document: the default picker configuration plus Higress's `_rules_`, each
// rule with its own complete picker configuration (rules do not nest: a rule's configuration is a plain
// PickerConfig).
import { ConfigRule } from "./config-rule";
import { PickerConfig } from "./picker-config";

export class PluginConfig extends PickerConfig {
  /** Higress `_rules_`, in order. */
  rules: Array<ConfigRule> = [];
  /** False when the document held only `_rules_` (Higress defaultConfigDisable): requests that no rule
   *  matches are left alone. */
  hasDefault: bool = true;

  /** Back to the defaults: the default settings, no rules. */
  reset(): void {
    this.copyFrom(new PickerConfig());
    this.rules = [];
    this.hasDefault = true;
  }
}
