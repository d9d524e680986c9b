/**
 * Routes whose parameter is a payment id: a malformed one is that payment not found, even when
 * the path does not percent-decode (the server's framework-error handler; the OpenAPI
 * document's x-unknown-route).
 */
export const PAYMENT_ID_PATH = /^\/(v1|admin)\/payments\/[^?]/;
