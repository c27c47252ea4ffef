import * as z from 'zod';

/**
 * The languages of messages and pages, by the platform's codes. A module of its own: code that needs only these
 * does not build the directory's schemas.
 */
export const LANGUAGES = { ru: 1, en: 2, az: 3 } as const;
export const languageSchema = z.union([z.literal(1), z.literal(2), z.literal(3)]);
export type Language = z.infer<typeof languageSchema>;
