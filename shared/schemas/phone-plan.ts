import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parsePhoneNumberFromString, type MetadataJson, type PhoneNumber } from 'libphonenumber-js/core';
import { ConfigError, phonePlanSchema, readConfig } from '../config';

// kept with its file: a container reads one file once, a test may point at another
let loaded: { file: string; plan: MetadataJson } | undefined;

// resolved once: a lookup through node_modules for every number checked would be file-system work each time
let installed: string | undefined;

function installedPlanFile(): string {
  try {
    return (installed ??= createRequire(import.meta.url).resolve('libphonenumber-js/metadata.mobile.json'));
  } catch (error) {
    throw new ConfigError(
      `PHONE_PLAN_FILE=(unset): no installed libphonenumber-js/metadata.mobile.json to read instead (${(error as Error).message})`,
    );
  }
}

function readPlan(file: string, setting: string): MetadataJson {
  let plan: unknown;
  try {
    plan = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${setting}: cannot read the numbering plan at ${file} (${(error as Error).message})`);
  }
  if (typeof plan !== 'object' || plan === null || !('countries' in plan) || !('country_calling_codes' in plan))
    throw new ConfigError(`${setting}: ${file} is not a numbering plan (libphonenumber-js's metadata.mobile.json)`);
  return plan as MetadataJson;
}

/**
 * The mobile numbering plan of every country (libphonenumber-js's metadata.mobile.json, ~99 KB), the one both the
 * API's check of a number at save and the deliver function's country of a number read, so that the two agree. It is
 * a file beside the bundle (`PHONE_PLAN_FILE`; unset, the installed package's), read with the first number a
 * container checks: compiled into the bundle, it would be an object literal parsed at every cold start of the api
 * function, which needs it only when a number is saved. A file that cannot be read fails that first check, naming the setting.
 */
export function phonePlan(): MetadataJson {
  const configured = readConfig(phonePlanSchema()).PHONE_PLAN_FILE;
  const file = configured ?? installedPlanFile();
  if (loaded?.file !== file) {
    loaded = { file, plan: readPlan(file, configured === undefined ? 'PHONE_PLAN_FILE=(unset)' : `PHONE_PLAN_FILE=${JSON.stringify(configured)}`) };
  }
  return loaded.plan;
}

/** A number in E.164 read by the plan; undefined for what is no number at all. */
export function parsePhoneNumber(phoneNumber: string): PhoneNumber | undefined {
  return parsePhoneNumberFromString(phoneNumber, phonePlan());
}

/** The country of a number, for the SMS allow-list and the price of an SMS. */
export function countryOfNumber(phoneNumber: string): string | undefined {
  return parsePhoneNumber(phoneNumber)?.country;
}

/** Whether a number's country is on the deployment's SMS allow-list (an empty list allows none: SMS off), at save and at delivery alike. */
export function isCountryAllowed(phoneNumber: string, countries: readonly string[]): boolean {
  const country = countryOfNumber(phoneNumber);
  return country !== undefined && countries.includes(country);
}
