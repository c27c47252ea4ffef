import type { Language } from '../../schemas/directory';

/** The verification SMS in the user's language; GSM-7 or short enough to stay one segment in every language. */
const WORDS: Record<Language, (code: string) => string> = {
  1: (code) => `fleetwatch: код подтверждения ${code}. Никому его не сообщайте.`,
  2: (code) => `fleetwatch: your verification code is ${code}. Do not share it.`,
  3: (code) => `fleetwatch: tesdiq kodunuz ${code}. Onu heç kimə deməyin.`,
};

export const verificationText = (language: Language, code: string): string => WORDS[language](code);
