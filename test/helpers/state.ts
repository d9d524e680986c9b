/**
 * Where a test deliberately sets up or inspects a state through the database rather than the
 * API (a payment row the API cannot make, a ledger entry booked twice, an id the gateway
 * would mint): the gateway's own writers and readers, in one place, so tests do not import
 * src/db or src/domain themselves. White-box tests of a storage module (test/integration/
 * storage/) import the module they test directly.
 */
export { createPaymentRecord, claimRegistration, type PaymentRow } from '../../src/db/payments.js';
export { recordLedgerEntry } from '../../src/db/ledger.js';
export { bindOperatorIdentity } from '../../src/db/operators.js';
export { cursorRows } from '../../src/db/cursor.js';
export { purgeExpired } from '../../src/db/idempotency.js';
export { purgeRejectedInbound } from '../../src/db/inbound.js';
export { newId } from '../../src/domain/ids.js';
export type { TerminalStatus } from '../../src/domain/types.js';
export { UNKNOWN_TEST_SCENARIO } from '../../src/domain/testScenarios.js';
