/**
 * Disputes (D16, docs/api.md#disputes): created and moved only by provider events the
 * provider's API has confirmed (services/inbound.ts), read by the operator's admin API.
 */
import { modeForApp } from './paymentSearch.js';
import * as disputesDb from '../db/disputes.js';
import type { DisputeRow, DisputeStatus } from '../db/disputes.js';
import { disputeBooked, recordLedgerEntry } from '../db/ledger.js';
import { enqueueEvent } from '../db/outbox.js';
import { lockPayment, type PaymentRow } from '../db/payments.js';
import { withTransaction, type Queryable } from '../db/pool.js';
import { parseListLimit, resolveMode } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import { disputeEventBody } from '../domain/events.js';
import { isPaymentId, newId } from '../domain/ids.js';
import { PARAMS } from '../domain/schemas.js';
import { PROVIDERS, type ProviderSlug } from '../domain/types.js';
import { disputesOpened } from '../metrics.js';
import type { DisputeAction } from '../providers/types.js';
import { applied, type Applied, type ProviderEventDeps } from './providerEvent.js';

/**
 * Records what the provider confirmed about a dispute, in one transaction with the payment
 * row locked (so a refund being created at the same time sees it, or is seen by it): the
 * dispute row (created, or moved from open to won or lost, never back), its ledger entries
 * (money taken back when it opens or is first seen lost; given back when won) and one
 * outbound event per change. The payment's own status never changes (spec 3.1 rule 1).
 */
export async function applyDispute(
  deps: Pick<ProviderEventDeps, 'pool' | 'log'>,
  slug: ProviderSlug,
  payment: PaymentRow,
  action: DisputeAction,
): Promise<Applied> {
  if (action.currency !== payment.currency || action.amountMinor > payment.amount_minor) {
    // A confirmed answer never should; kept off the books and shown to the operator.
    deps.log.error(
      {
        payment_id: payment.id,
        provider: slug,
        provider_ref: action.providerRef,
        amount_minor: action.amountMinor,
        currency: action.currency,
      },
      'dispute amount does not fit the payment: not recorded, operator action needed',
    );
    return applied('none', 'dispute_amount_mismatch');
  }
  const result = await withTransaction(deps.pool, async (tx) => {
    const locked = await lockPayment(tx, payment.id);
    if (!locked || locked.status !== 'succeeded') return null;
    // A reversal (PayPal's reversed capture, heard of by a path that did not see a case) is
    // the money of a case only when the case still holds it (open or lost) and has taken at
    // least the reversal's amount; otherwise it is money of its own, and a case that held
    // part of it lets that part go to the reversal (never the same money twice).
    let partOfCase: DisputeRow | null = null;
    if (action.withoutCase) {
      const held = await disputesDb.caseHoldingMoney(tx, locked.id, slug, action.providerRef);
      if (held) {
        const booked = await disputeBooked(tx, held.id);
        if (-booked.taken >= action.amountMinor) return { row: held, change: 'of_case' as const };
        partOfCase = held;
      }
    }
    const { row, change } = await disputesDb.upsertDispute(tx, {
      id: newId(),
      payment_id: locked.id,
      app_id: locked.app_id,
      provider: slug,
      provider_ref: action.providerRef,
      mode: locked.mode,
      status: action.status,
      amount_minor: action.amountMinor,
      currency: action.currency,
      reason: action.reason,
      evidence_due_by: action.evidenceDueBy,
      opened_at: action.openedAt,
    });
    if (change === 'inserted' || change === 'closed' || change === 'amount') {
      // A case whose capture was reversed before the provider had the case (a reversal on
      // record as a dispute of its own): that money is gone already, the case takes only the
      // rest, and gives it all back if won.
      const taken = action.covers
        ? await disputesDb.takenByReversal(tx, locked.id, slug, action.covers)
        : 0;
      await bookDispute(tx, row, taken);
      if (partOfCase) {
        // The reversal took the whole capture: the case's entries leave that out from now on,
        // as they do when its confirmation names the reversed capture (covers).
        const reversed = await disputesDb.takenByReversal(tx, locked.id, slug, row.provider_ref);
        await bookDispute(tx, partOfCase, reversed);
      }
    }
    if (change === 'inserted') {
      await enqueueDisputeEvent(tx, locked, 'dispute.opened', { ...row, status: 'open' });
    }
    if ((change === 'inserted' || change === 'closed') && row.status !== 'open') {
      await enqueueDisputeEvent(tx, locked, 'dispute.closed', row, change === 'inserted' ? 1 : 0);
    }
    return { row, change };
  });
  if (!result) return applied('none', 'dispute_on_unpaid_payment');
  const { row, change } = result;
  if (change === 'inserted') {
    disputesOpened.inc({ provider: slug });
    deps.log.error(
      {
        dispute_id: row.id,
        payment_id: row.payment_id,
        provider: row.provider,
        provider_ref: row.provider_ref,
        status: row.status,
        amount_minor: row.amount_minor,
        currency: row.currency,
        evidence_due_by: row.evidence_due_by?.toISOString() ?? null,
      },
      'provider took money back: dispute recorded',
    );
  }
  switch (change) {
    case 'inserted':
      return applied('changed', row.status === 'open' ? 'dispute_opened' : `dispute_${row.status}`);
    case 'closed':
      return applied('changed', `dispute_${row.status}`);
    case 'amount':
      deps.log.warn(
        {
          dispute_id: row.id,
          payment_id: row.payment_id,
          provider: row.provider,
          status: row.status,
          amount_minor: row.amount_minor,
          currency: row.currency,
        },
        'provider changed a dispute amount: ledger corrected',
      );
      return applied('changed', 'dispute_amount_changed');
    case 'refreshed':
      return applied('changed', 'dispute_updated');
    case 'unchanged':
      return applied('none', 'dispute_unchanged');
    case 'of_case':
      return applied('none', 'reversal_of_dispute');
  }
}

/**
 * The dispute's money on the ledger, brought to what the row says: taken back (an open
 * dispute holds the money, a lost one has taken it) for its current amount, and given back
 * once when won. What is booked already is read from the ledger, so a replay books nothing
 * and a changed amount books only the difference (a correction entry of type `dispute`,
 * never an edit). Money another record took already (takenElsewhere: a reversal of the
 * case's capture) is not taken again. The caller holds the payment's lock, so two
 * confirmations never book the same step.
 */
async function bookDispute(tx: Queryable, d: DisputeRow, takenElsewhere = 0): Promise<void> {
  const entry = {
    payment_id: d.payment_id,
    dispute_id: d.id,
    app_id: d.app_id,
    provider: d.provider,
    mode: d.mode,
    currency: d.currency,
  };
  const booked = await disputeBooked(tx, d.id);
  const correction = -Math.max(0, d.amount_minor - takenElsewhere) - booked.taken;
  if (correction !== 0) {
    await recordLedgerEntry(tx, { ...entry, type: 'dispute', amount_minor: correction });
  }
  if (d.status === 'won' && !booked.givenBack) {
    await recordLedgerEntry(tx, {
      ...entry,
      type: 'dispute_reversal',
      amount_minor: d.amount_minor,
    });
  }
}

async function enqueueDisputeEvent(
  tx: Queryable,
  payment: PaymentRow,
  eventType: 'dispute.opened' | 'dispute.closed',
  d: DisputeRow,
  sequence = 0,
): Promise<void> {
  await enqueueEvent(tx, {
    sequence,
    appId: payment.app_id,
    paymentId: payment.id,
    eventType,
    body: disputeEventBody(eventType, d, payment.metadata, d.updated_at),
    // One event per change, whatever races: the dispute opens once and closes once.
    dedupeKey: `${eventType}:${d.id}`,
  });
}

/** docs/api.md#dispute-object. */
export function toDisputeView(d: DisputeRow) {
  return {
    dispute_id: d.id,
    payment_id: d.payment_id,
    app_id: d.app_id,
    provider: d.provider,
    provider_ref: d.provider_ref,
    status: d.status,
    amount_minor: d.amount_minor,
    currency: d.currency,
    reason: d.reason,
    opened_at: d.opened_at.toISOString(),
    closed_at: d.closed_at?.toISOString() ?? null,
    evidence_due_by: d.evidence_due_by?.toISOString() ?? null,
    mode: d.mode,
  };
}

export type DisputeView = ReturnType<typeof toDisputeView>;

function optional(v: string | undefined): string | null {
  return v === undefined || v === '' ? null : v;
}

/** GET /admin/disputes: newest first, limit/before paging and filters like the other lists. */
export async function listDisputes(
  db: Queryable,
  q: {
    limit?: string;
    before?: string;
    status?: string;
    provider?: string;
    app_id?: string;
    mode?: string;
  },
): Promise<{ mode: string; disputes: DisputeView[] }> {
  const limit = parseListLimit(q.limit);
  const status = optional(q.status);
  if (status !== null && !(disputesDb.DISPUTE_STATUSES as readonly string[]).includes(status)) {
    throw apiError('invalid', `status must be one of ${disputesDb.DISPUTE_STATUSES.join(', ')}`);
  }
  const provider = optional(q.provider);
  if (provider !== null && !(PROVIDERS as readonly string[]).includes(provider)) {
    throw apiError('invalid', `provider must be one of ${PROVIDERS.join(', ')}`);
  }
  const appId = optional(q.app_id);
  if (appId !== null && appId.length > PARAMS.appId.maxLength) {
    throw apiError(
      'invalid',
      `app_id must be at most ${PARAMS.appId.maxLength} characters of text`,
    );
  }
  const before = optional(q.before);
  if (before !== null && !(isPaymentId(before) && (await disputesDb.disputeExists(db, before)))) {
    throw apiError('invalid', 'before must be a dispute id from a previous page');
  }
  const mode = resolveMode(q.mode);
  // An app's disputes carry its one mode: another mode, or an unknown app, is none at once
  // (services/paymentSearch.ts), instead of a walk through all of the app's disputes.
  const only = await modeForApp(db, mode === '' ? null : mode, appId);
  if (only === 'none') return { mode, disputes: [] };
  const rows = await disputesDb.listDisputeRows(db, {
    status: status as DisputeStatus | null,
    provider,
    appId,
    mode: only,
    before,
    limit,
  });
  return { mode, disputes: rows.map(toDisputeView) };
}

/** GET /admin/disputes/{id}. */
export async function getDispute(db: Queryable, id: string): Promise<DisputeView> {
  const row = isPaymentId(id) ? await disputesDb.findDispute(db, id) : null;
  if (!row) throw apiError('dispute_not_found');
  return toDisputeView(row);
}
