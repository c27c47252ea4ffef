/**
 * Environment of every test run. Passwords are hashed at scrypt N=2^10 instead of the deployed 2^17, which costs
 * about half a second of CPU per hash: the suite's ~480 hashes and logins spent some 220 s of its CPU on scrypt
 * alone. The configuration accepts so low a cost only where NODE_ENV=test, which vitest sets; the tests of the
 * deployed parameters (test/security/auth-hardening.test.ts) unset it.
 */
export const TEST_ENV = { PASSWORD_SCRYPT_N: String(2 ** 10) };
