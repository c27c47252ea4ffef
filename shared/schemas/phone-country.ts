import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * The country of a number, with libphonenumber-js's small metadata: enough to tell the country, and it keeps the
 * deliver bundle small (the full validation, with the large metadata, is the API's, at save: phone.ts, which also
 * tells the country there, from that metadata).
 */
export function countryOfNumber(phoneNumber: string): string | undefined {
  return parsePhoneNumberFromString(phoneNumber)?.country;
}

/** Whether a number's country is on the deployment's SMS allow-list (an empty list allows none: SMS off). */
export function isCountryAllowed(phoneNumber: string, countries: readonly string[]): boolean {
  const country = countryOfNumber(phoneNumber);
  return country !== undefined && countries.includes(country);
}
