/**
 * What each rule type's `settings` keys mean and default to, for people: the OpenAPI document and the 400
 * answers are written from it. The evaluators' schemas are what decides; a test checks that every key here is
 * one the schema knows, that every key the schema knows is here, and that each default is the schema's own.
 */
export interface SettingReference {
  key: string;
  /** The value used when the key is left out, as the string it would be written as; null when there is none. */
  default: string | null;
  meaning: string;
  /** A valid value, where the key's values have a form of their own. */
  example?: string;
}

export interface TypeReference {
  name: string;
  events: string;
  settings: SettingReference[];
  /** Rules between settings, and between settings and the rule's other fields. */
  constraints: string[];
  /** A minimal valid `settings` map (only what is required). */
  example: Record<string, string>;
}
