/**
 * The ids the OpenAPI examples share (the client Acme Logistics, its branch, its dispatcher, a rota, a silence).
 * A module of their own: examples.ts, which the login route's examples load at cold start, then needs none of the
 * schema modules that use them, and those load with the first request of their routes.
 */
export const EXAMPLE_CLIENT_ID = '6f1c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f';
export const EXAMPLE_CHILD_ID = '0d9e8f7a-6b5c-4d3e-9f1a-2b3c4d5e6f70';
export const EXAMPLE_USER_ID = 'a3b2c1d0-e9f8-4a7b-8c6d-5e4f3a2b1c0d';
export const EXAMPLE_ROTA_ID = `${EXAMPLE_CLIENT_ID}.Qm9uZGF5LW5pZ2h0LXNoaW`;
export const EXAMPLE_SILENCE_ID = `${EXAMPLE_CLIENT_ID}.2rnROxza7R0EhXIB0u3gtA`;
