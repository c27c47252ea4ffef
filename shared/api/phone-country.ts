import { smsConfig } from '../config';
import { isCountryAllowed } from '../schemas/phone-plan';
import { validationError } from './errors';

/** Refuses a number whose country the installation does not send SMS to (CDK context `smsCountries`). */
export function requireSmsCountry(phoneNumber: string | null | undefined, path = 'phoneNumber'): void {
  if (!phoneNumber) return;
  const countries = smsConfig().SMS_COUNTRIES;
  if (isCountryAllowed(phoneNumber, countries)) return;
  throw validationError([
    {
      path,
      message:
        countries.length === 0
          ? 'this installation sends no SMS (no countries are allowed): leave phoneNumber null'
          : `this installation sends SMS only to numbers of ${countries.join(', ')}`,
    },
  ]);
}
