/**
 * Property (D16, docs/api.md#ledger): for a random sequence of payments, refunds, late
 * charges and dispute steps, the summary's net is the sum of the ledger per app, provider,
 * currency and mode, its disputed_minor what disputes took net of reversals, and the
 * calculated balances the ledger's all-time sums; the ledger itself holds exactly what each
 * step moved. Payments, refunds and late charges go through the gateway over real HTTP and
 * the simulators; dispute rows are booked through recordLedgerEntry, as the disputes code
 * books them.
 *
 * The sequence comes from a seeded PRNG: LEDGER_PROPERTY_SEED=<n> replays a failure (the
 * seed is printed with it); LEDGER_PROPERTY_STEPS sets the length (default 30).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { recordLedgerEntry, newId } from '../../helpers/state.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { createPayment, paidPayment, simAction, type Kind } from '../../helpers/payments.js';

const SEED = process.env.LEDGER_PROPERTY_SEED
  ? Number(process.env.LEDGER_PROPERTY_SEED)
  : Math.floor(Math.random() * 2 ** 31);
const STEPS = Number(process.env.LEDGER_PROPERTY_STEPS ?? 30);

/** mulberry32: small, fast and the same sequence for the same seed on every platform. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const PROVIDER: Record<'idr' | 'card' | 'wallet', { slug: string; currency: string }> = {
  idr: { slug: 'idr_psp', currency: 'IDR' },
  card: { slug: 'card_psp', currency: 'USD' },
  wallet: { slug: 'wallet_psp', currency: 'EUR' },
};
type Slug = keyof typeof PROVIDER;

interface Paid {
  id: string;
  app: AppWithSecrets;
  kind: Slug;
  amount: number;
  refunded: boolean;
  /** Its dispute (one per payment here); won once reversed. */
  dispute: { id: string; amount: number; won: boolean } | null;
}

let gw: TestGateway;
let pool: pg.Pool;
let apps: AppWithSecrets[];
let started: Date;

before(async () => {
  gw = await startTestGateway();
  pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 2 });
  apps = [await gw.createApp({ name: 'Prop A' }), await gw.createApp({ name: 'Prop B' })];
  started = new Date(Date.now() - 1000);
});
after(async () => {
  await pool?.end();
  await gw?.stop();
});

/** Expected sums, keyed `app provider currency mode`. */
class Model {
  net = new Map<string, bigint>();
  disputed = new Map<string, bigint>();
  move(app: AppWithSecrets, kind: Slug, amount: number, disputed = 0) {
    const k = `${app.app_id} ${PROVIDER[kind].slug} ${PROVIDER[kind].currency} ${app.mode}`;
    this.net.set(k, (this.net.get(k) ?? 0n) + BigInt(amount));
    this.disputed.set(k, (this.disputed.get(k) ?? 0n) + BigInt(disputed));
  }
}

async function latePayment(
  app: AppWithSecrets,
  kind: 'idr' | 'card',
  amount: number,
): Promise<void> {
  const p = await createPayment(gw, app, kind, amount);
  assertStatus(await gw.admin('POST', `/admin/payments/${p.id}/cancel`), 200);
  if (kind === 'card') {
    // card_psp cannot close its checkout: the buyer pays the canceled payment.
    const r = await simAction(gw, 'card', p.providerRef, 'pay');
    assert.equal(r.gateway_status, 200, r.gateway_body);
    return;
  }
  // idr_psp settles anyway (a late bank confirmation); the gateway refunds it at once.
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'::jsonb
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [p.id],
  );
  const res = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(idrTestServerKey(gw.running.gw.config.masterKey), {
      orderId: p.id,
      status: 'settlement',
      grossAmount: amount,
    }),
  );
  assert.equal(res.status, 200, res.text);
}

async function run(rand: () => number, model: Model): Promise<void> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const amountOf = (kind: Slug) =>
    kind === 'idr' ? 1000 * (1 + Math.floor(rand() * 500)) : 100 + Math.floor(rand() * 99_900);
  const paid: Paid[] = [];
  for (let step = 0; step < STEPS; step++) {
    const app = pick(apps);
    const r = rand();
    const refundable = paid.filter((p) => !p.refunded && p.kind !== 'card' && !p.dispute);
    const disputable = paid.filter((p) => !p.dispute);
    const open = paid.filter((p) => p.dispute && !p.dispute.won);
    if (r < 0.4 || paid.length === 0) {
      const kind = pick(['idr', 'card', 'wallet'] as const);
      const amount = amountOf(kind);
      const p = await paidPayment(gw, app, kind satisfies Kind, amount);
      paid.push({ id: p.id, app, kind, amount, refunded: false, dispute: null });
      model.move(app, kind, amount);
    } else if (r < 0.6 && refundable.length > 0) {
      const p = pick(refundable);
      const amount = rand() < 0.5 ? p.amount : 1 + Math.floor(rand() * p.amount);
      const res = await gw.v1(p.app, 'POST', '/v1/refunds', {
        payment_id: p.id,
        amount_minor: amount,
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json<{ status: string }>().status, 'succeeded', res.text);
      p.refunded = true;
      model.move(p.app, p.kind, -amount);
    } else if (r < 0.75) {
      const kind = pick(['idr', 'card'] as const);
      const amount = amountOf(kind);
      await latePayment(app, kind, amount);
      // idr_psp gives the late charge back at once (late_charge_refund): nets to zero.
      model.move(app, kind, kind === 'idr' ? 0 : amount);
    } else if (r < 0.9 && disputable.length > 0) {
      const p = pick(disputable);
      const amount = rand() < 0.5 ? p.amount : 1 + Math.floor(rand() * p.amount);
      const id = newId();
      const booked = await recordLedgerEntry(pool, {
        type: 'dispute',
        payment_id: p.id,
        dispute_id: id,
        app_id: p.app.app_id,
        provider: PROVIDER[p.kind].slug,
        mode: p.app.mode,
        currency: PROVIDER[p.kind].currency,
        amount_minor: -amount,
      });
      assert.ok(booked);
      p.dispute = { id, amount, won: false };
      model.move(p.app, p.kind, -amount, amount);
    } else if (open.length > 0) {
      // A won dispute gives the money back: a dispute_reversal of the same dispute.
      const p = pick(open);
      const d = p.dispute as { id: string; amount: number; won: boolean };
      const entry = {
        type: 'dispute_reversal' as const,
        payment_id: p.id,
        dispute_id: d.id,
        app_id: p.app.app_id,
        provider: PROVIDER[p.kind].slug,
        mode: p.app.mode,
        currency: PROVIDER[p.kind].currency,
        amount_minor: d.amount,
      };
      assert.ok(await recordLedgerEntry(pool, entry));
      // The same step again (a redelivered provider event) books nothing.
      assert.equal(await recordLedgerEntry(pool, entry), null);
      d.won = true;
      model.move(p.app, p.kind, d.amount, -d.amount);
    }
  }
}

interface Figures {
  net_minor: number;
  disputed_minor: number;
}

function sums(
  entries: { key: string; amount: bigint; disputed: bigint }[],
  by: (key: string) => string,
) {
  const out = new Map<string, { net: bigint; disputed: bigint }>();
  for (const e of entries) {
    const k = by(e.key);
    const s = out.get(k) ?? { net: 0n, disputed: 0n };
    out.set(k, { net: s.net + e.amount, disputed: s.disputed + e.disputed });
  }
  return out;
}

test(`summary net is the sum of the ledger (seed ${SEED})`, async () => {
  const model = new Model();
  try {
    await run(prng(SEED), model);

    // The ledger as the API lists it, every entry of the run.
    const res = await gw.admin('GET', '/admin/ledger?limit=1000');
    assertStatus(res, 200);
    const entries = res
      .json<{
        entries: {
          type: string;
          app_id: string;
          provider: string;
          currency: string;
          mode: string;
          amount_minor: number;
        }[];
      }>()
      .entries.map((e) => ({
        key: `${e.app_id} ${e.provider} ${e.currency} ${e.mode}`,
        amount: BigInt(e.amount_minor),
        disputed:
          e.type === 'dispute' || e.type === 'dispute_reversal' ? -BigInt(e.amount_minor) : 0n,
      }));
    const byKey = sums(entries, (k) => k);
    // The ledger holds exactly what the steps moved.
    for (const k of new Set([...byKey.keys(), ...model.net.keys()])) {
      assert.equal(byKey.get(k)?.net ?? 0n, model.net.get(k) ?? 0n, `ledger net of ${k}`);
      assert.equal(byKey.get(k)?.disputed ?? 0n, model.disputed.get(k) ?? 0n, `disputed of ${k}`);
    }

    for (const mode of ['test', 'sandbox', 'live']) {
      const summary = await gw.admin(
        'GET',
        `/admin/summary?since=${started.toISOString()}&mode=${mode}`,
      );
      assertStatus(summary, 200);
      const body = summary.json<{
        by_app: ({ app_id: string; by_currency: ({ currency: string } & Figures)[] } & Figures)[];
        by_provider: ({ provider: string } & Figures)[];
        by_currency: ({ currency: string } & Figures)[];
      }>();
      const inMode = entries.filter((e) => e.key.endsWith(` ${mode}`));
      const check = (what: string, got: Figures | undefined, want = { net: 0n, disputed: 0n }) => {
        assert.equal(BigInt(got?.net_minor ?? 0), want.net, `${mode} ${what} net_minor`);
        assert.equal(
          BigInt(got?.disputed_minor ?? 0),
          want.disputed,
          `${mode} ${what} disputed_minor`,
        );
      };
      const appCur = sums(inMode, (k) => {
        const [app, , currency] = k.split(' ');
        return `${app} ${currency}`;
      });
      for (const [k, want] of appCur) {
        const [appId, currency] = k.split(' ');
        const app = body.by_app.find((a) => a.app_id === appId);
        check(
          `app ${k}`,
          app?.by_currency.find((c) => c.currency === currency),
          want,
        );
      }
      for (const [appId, want] of sums(inMode, (k) => k.split(' ')[0] as string)) {
        check(
          `app ${appId}`,
          body.by_app.find((a) => a.app_id === appId),
          want,
        );
      }
      for (const p of body.by_provider) {
        check(
          `provider ${p.provider}`,
          p,
          sums(inMode, (k) => k.split(' ')[1] as string).get(p.provider),
        );
      }
      for (const c of body.by_currency) {
        check(
          `currency ${c.currency}`,
          c,
          sums(inMode, (k) => k.split(' ')[2] as string).get(c.currency),
        );
      }
    }

    // Calculated balances are the ledger's all-time sums (wallet_psp answers its real one).
    const balances = await gw.admin('GET', '/admin/balances');
    assertStatus(balances, 200);
    const perAccount = sums(entries, (k) => {
      const [, provider, currency, mode] = k.split(' ');
      return `${provider} ${mode} ${currency}`;
    });
    for (const b of balances.json<{
      balances: {
        provider: string;
        mode: string;
        currency: string;
        source: string;
        available_minor: number;
      }[];
    }>().balances) {
      if (b.source !== 'calculated') continue;
      const want = perAccount.get(`${b.provider} ${b.mode} ${b.currency}`)?.net ?? 0n;
      assert.equal(
        BigInt(b.available_minor),
        want,
        `balance ${b.provider} ${b.mode} ${b.currency}`,
      );
    }
  } catch (err) {
    // The seed replays the same sequence: LEDGER_PROPERTY_SEED=<seed>.
    throw new Error(`ledger property failed with LEDGER_PROPERTY_SEED=${SEED}`, { cause: err });
  }
});
