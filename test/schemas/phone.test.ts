import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCountryCallingCode, getExampleNumber, type CountryCode } from 'libphonenumber-js/core';
import examples from 'libphonenumber-js/examples.mobile.json';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { phoneNumberSchema } from '../../shared/schemas/phone';
import { countryOfNumber, isCountryAllowed, phonePlan } from '../../shared/schemas/phone-plan';
import { smsCostMicroUsd } from '../../shared/channels/sms/prices';

const accepts = (value: string) => phoneNumberSchema.safeParse(value).success;

describe('a recipient phone number', () => {
  it('takes mobile numbers and refuses fixed lines, which no SMS reaches', () => {
    for (const mobile of ['+994501234567', '+995555123456', '+79161234567', '+4915100000000']) expect(accepts(mobile), mobile).toBe(true);
    for (const fixed of ['+994124981234', '+442079460000', '+74951234567', '+4930123456']) expect(accepts(fixed), fixed).toBe(false);
    // the NANP does not tell mobile and fixed numbers apart
    expect(accepts('+12025550123')).toBe(true);
  });

  it("tells, at save, the country the deliver function tells and prices for every country's example mobile number", () => {
    const countries = Object.keys(examples) as CountryCode[];
    expect(countries.length).toBeGreaterThan(200);
    let checked = 0;
    for (const country of countries) {
      const number = getExampleNumber(country, examples, phonePlan())!.number;
      if (!accepts(number)) continue;
      checked++;
      // a territory that shares its country's numbers (Åland's are Finland's) is told as that country, alike
      const atDelivery = countryOfNumber(number);
      expect(atDelivery, number).toBeDefined();
      expect(getCountryCallingCode(atDelivery as CountryCode, phonePlan()), number).toBe(getCountryCallingCode(country, phonePlan()));
      expect(isCountryAllowed(number, [atDelivery!]), number).toBe(true);
      expect(
        isCountryAllowed(
          number,
          countries.filter((other) => other !== atDelivery),
        ),
        number,
      ).toBe(false);
      expect(smsCostMicroUsd(number, 1, { [atDelivery!]: 0.01 }), number).toBe(10_000);
    }
    expect(checked).toBeGreaterThan(200);
  });
});

describe('the numbering plan', () => {
  const installed = createRequire(import.meta.url).resolve('libphonenumber-js/metadata.mobile.json');
  const dir = mkdtempSync(join(tmpdir(), 'fleetwatch-phone-plan-'));

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is read from PHONE_PLAN_FILE when it is set, once', () => {
    // a plan without Azerbaijan: its numbers are no numbers any more, Georgia's still are
    const plan = JSON.parse(readFileSync(installed, 'utf8')) as {
      countries: Record<string, unknown>;
      country_calling_codes: Record<string, string[]>;
    };
    delete plan.countries.AZ;
    delete plan.country_calling_codes['994'];
    const file = join(dir, 'phone-plan.json');
    writeFileSync(file, JSON.stringify(plan));
    expect(accepts('+994501234567')).toBe(true);

    vi.stubEnv('PHONE_PLAN_FILE', file);
    expect(accepts('+994501234567')).toBe(false);
    expect(countryOfNumber('+994501234567')).toBeUndefined();
    expect(accepts('+995555123456')).toBe(true);
    rmSync(file);
    expect(accepts('+995555123456')).toBe(true);
    expect(isCountryAllowed('+995555123456', ['GE'])).toBe(true);

    vi.unstubAllEnvs();
    expect(accepts('+994501234567')).toBe(true);
  });

  it('fails the first check, naming the setting and the file, when the file cannot be read or is no plan', () => {
    const missing = join(dir, 'missing.json');
    vi.stubEnv('PHONE_PLAN_FILE', missing);
    const unreadable = new RegExp(`PHONE_PLAN_FILE="${missing}": cannot read the numbering plan at ${missing} \\(ENOENT`);
    expect(() => phoneNumberSchema.safeParse('+994501234567')).toThrow(unreadable);
    expect(() => countryOfNumber('+994501234567')).toThrow(unreadable);

    const notAPlan = join(dir, 'not-a-plan.json');
    writeFileSync(notAPlan, JSON.stringify({ AZ: '994' }));
    vi.stubEnv('PHONE_PLAN_FILE', notAPlan);
    expect(() => isCountryAllowed('+994501234567', ['AZ'])).toThrow(`PHONE_PLAN_FILE="${notAPlan}": ${notAPlan} is not a numbering plan`);
  });
});
