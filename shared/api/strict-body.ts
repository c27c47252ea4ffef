import * as z from 'zod';

/**
 * A request body that refuses every field it does not define, with a 400 naming each one: a misspelt field
 * (`vehicleIDs`) or one sent at the wrong level would otherwise be dropped, and the record stored without what
 * its author meant. The OpenAPI document shows such a body with `additionalProperties: false`.
 */
export function strictBody<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field (known: ${known})` : undefined) });
}
