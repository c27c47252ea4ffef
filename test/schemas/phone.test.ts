import { getExampleNumber, type CountryCode } from 'libphonenumber-js/mobile';
import examples from 'libphonenumber-js/examples.mobile.json';
import { describe, expect, it } from 'vitest';
import { isCountryAllowed, phoneNumberSchema } from '../../shared/schemas/phone';
import { countryOfNumber } from '../../shared/schemas/phone-country';

const accepts = (value: string) => phoneNumberSchema.safeParse(value).success;

describe('a recipient phone number', () => {
  it('takes mobile numbers and refuses fixed lines, which no SMS reaches', () => {
    for (const mobile of ['+994501234567', '+995555123456', '+79161234567', '+4915100000000']) expect(accepts(mobile), mobile).toBe(true);
    for (const fixed of ['+994124981234', '+442079460000', '+74951234567', '+4930123456']) expect(accepts(fixed), fixed).toBe(false);
    // the NANP does not tell mobile and fixed numbers apart
    expect(accepts('+12025550123')).toBe(true);
  });

  it("tells, at save, the country the deliver function tells for every country's example mobile number", () => {
    const countries = Object.keys(examples) as CountryCode[];
    expect(countries.length).toBeGreaterThan(200);
    let checked = 0;
    for (const country of countries) {
      const number = getExampleNumber(country, examples)!.number;
      if (!accepts(number)) continue;
      checked++;
      // a territory that shares its country's numbers (Åland's are Finland's) is told as that country, alike
      const atDelivery = countryOfNumber(number);
      expect(atDelivery, number).toBeDefined();
      expect(isCountryAllowed(number, [atDelivery!]), number).toBe(true);
      expect(
        isCountryAllowed(
          number,
          countries.filter((other) => other !== atDelivery),
        ),
        number,
      ).toBe(false);
    }
    expect(checked).toBeGreaterThan(200);
  });
});
