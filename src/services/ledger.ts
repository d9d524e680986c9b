/**
 * GET /admin/ledger (docs/api.md#ledger): every movement of money, newest first, with the
 * filters and paging of the other admin lists.
 */
import * as ledgerDb from '../db/ledger.js';
import type { LedgerEntry, LedgerType } from '../db/ledger.js';
import type { Queryable } from '../db/pool.js';
import { parseListLimit, parseTimestamp, resolveMode } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import { isPaymentId } from '../domain/ids.js';
import { isText } from '../domain/paymentSearch.js';
import { PARAMS } from '../domain/schemas.js';
import { LEDGER_TYPES, PROVIDERS } from '../domain/types.js';
import { modeForApp } from './paymentSearch.js';
import { KNOWN_CURRENCIES } from './reports/summary.js';

export interface LedgerQuery {
  limit?: string;
  before?: string;
  provider?: string;
  currency?: string;
  app_id?: string;
  mode?: string;
  type?: string;
  since?: string;
  until?: string;
}

export interface LedgerEntryView {
  id: string;
  type: LedgerType;
  payment_id: string;
  refund_id: string | null;
  dispute_id: string | null;
  exception_id: string | null;
  app_id: string;
  provider: string;
  mode: string;
  currency: string;
  amount_minor: number;
  fee_minor: number | null;
  occurred_at: string;
}

export function toLedgerEntryView(e: LedgerEntry): LedgerEntryView {
  return {
    id: e.id,
    type: e.type,
    payment_id: e.payment_id,
    refund_id: e.refund_id,
    dispute_id: e.dispute_id,
    exception_id: e.exception_id,
    app_id: e.app_id,
    provider: e.provider,
    mode: e.mode,
    currency: e.currency,
    amount_minor: e.amount_minor,
    fee_minor: e.fee_minor,
    occurred_at: e.occurred_at.toISOString(),
  };
}

const absent = (v: string | undefined): v is undefined | '' => v === undefined || v === '';

/** A value of a closed list, or a 400 naming the list (empty or absent: no filter). */
function oneOf<T extends string>(
  name: string,
  raw: string | undefined,
  list: readonly T[],
): T | null {
  if (absent(raw)) return null;
  if (!(list as readonly string[]).includes(raw)) {
    throw apiError('invalid', `${name} must be one of ${list.join(', ')}`);
  }
  return raw as T;
}

export async function listLedger(
  db: Queryable,
  q: LedgerQuery,
): Promise<{ entries: LedgerEntryView[]; next_before: string | null }> {
  const limit = parseListLimit(q.limit);
  const provider = oneOf('provider', q.provider, PROVIDERS);
  const currency = oneOf('currency', q.currency, KNOWN_CURRENCIES);
  const type = oneOf('type', q.type, LEDGER_TYPES);
  let appId: string | null = null;
  if (!absent(q.app_id)) {
    const max = PARAMS.appId.maxLength;
    if (q.app_id.length > max || !isText(q.app_id)) {
      throw apiError('invalid', `app_id must be at most ${max} characters of text`);
    }
    appId = q.app_id;
  }
  const since = parseTimestamp('since', q.since);
  const until = parseTimestamp('until', q.until);
  if (since && until && since.getTime() > until.getTime()) {
    throw apiError('invalid', 'since must not be after until');
  }
  const before = absent(q.before) ? null : q.before;
  if (before !== null && !(isPaymentId(before) && (await ledgerDb.ledgerEntryExists(db, before)))) {
    throw apiError('invalid', 'before must be a ledger entry id from a previous page');
  }
  const mode = resolveMode(q.mode);
  // An app's entries carry its one mode: another mode, or an unknown app, is none at once
  // (services/paymentSearch.ts), the end of the list.
  const only = await modeForApp(db, mode === '' ? null : mode, appId);
  if (only === 'none') return { entries: [], next_before: null };
  const page = await ledgerDb.listLedgerPage(db, {
    provider,
    currency,
    appId,
    mode: only,
    type,
    since,
    until,
    before,
    limit,
  });
  return { entries: page.entries.map(toLedgerEntryView), next_before: page.nextBefore };
}
