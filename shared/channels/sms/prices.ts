import * as z from 'zod';
import { countryOfNumber } from '../../schemas/phone-plan';

/**
 * Estimated price of one SMS segment by destination country, in US dollars: AWS End User Messaging SMS's
 * published outbound prices for transactional SMS (plus carrier fees where AWS lists them), rounded up, checked
 * November 2026. They only estimate spend against each client's cap; the deployer overrides or adds countries with
 * `SMS_PRICES` (CDK context `smsPrices`). A country missing here costs `DEFAULT_SEGMENT_PRICE_USD`, which errs high.
 */
export const SEGMENT_PRICES_USD: Readonly<Record<string, number>> = {
  AZ: 0.25,
  GE: 0.12,
  KZ: 0.2,
  RU: 0.35,
  TR: 0.03,
  UA: 0.15,
  UZ: 0.2,
  DE: 0.1,
  GB: 0.045,
  US: 0.0089,
};
export const DEFAULT_SEGMENT_PRICE_USD = 0.5;

const overridesSchema = z.record(z.string().regex(/^[A-Z]{2}$/), z.number().min(0).max(10));

/** The price table with the deployer's overrides; a malformed override fails loudly. */
export function segmentPrices(overridesJson: string): Record<string, number> {
  return { ...SEGMENT_PRICES_USD, ...overridesSchema.parse(JSON.parse(overridesJson)) };
}

/** Estimated cost of one SMS, in micro-dollars (whole numbers, so the counter adds exactly). */
export function smsCostMicroUsd(phoneNumber: string, segments: number, prices: Readonly<Record<string, number>>): number {
  const country = countryOfNumber(phoneNumber) ?? '';
  return Math.round((prices[country] ?? DEFAULT_SEGMENT_PRICE_USD) * 1_000_000) * segments;
}
