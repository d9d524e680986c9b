import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { crc16 } from '../../helpers/drivers/idr_psp.js';
import { decodeQrPng, parseTlv } from '../../helpers/emvQr.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const METHODS = ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'] as const;

function paymentBody(method: string, over: Record<string, unknown> = {}) {
  return {
    external_user_id: 'buyer-1',
    email: 'buyer@example.com',
    amount_minor: 125000,
    currency: 'IDR',
    method,
    return_url: 'https://shop.example/return',
    ...over,
  };
}

/** Checkout URLs are public (localhost); fetch them through the address the test server binds. */
function viaInternal(gw: TestGateway, url: string): string {
  const u = new URL(url);
  return gw.url + u.pathname + u.search;
}

describe('hosted checkout (default)', () => {
  let gw: TestGateway;
  let app: AppWithSecrets;
  before(async () => {
    gw = await startTestGateway();
    app = await gw.createApp();
  });
  after(async () => {
    await gw?.stop();
  });

  for (const method of METHODS) {
    test(`${method}: 201 with a checkout page under /sim/idr_psp/ and no QR fields`, async () => {
      const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody(method));
      assert.equal(res.status, 201, res.text);
      const body = res.json<Record<string, string>>();
      assert.deepEqual(Object.keys(body).sort(), ['checkout_url', 'payment_id', 'status']);
      assert.equal(body.status, 'initiated');
      assert.ok(
        body.checkout_url?.startsWith(`${gw.running.gw.urls.public}/sim/idr_psp/`),
        body.checkout_url,
      );

      const page = await fetch(viaInternal(gw, body.checkout_url ?? ''));
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const html = await page.text();
      for (const label of ['Pay', 'Fail', 'Cancel', 'Expire']) {
        assert.ok(html.includes(`>${label}</button>`), `${label} button`);
      }
      assert.ok(html.includes('Rp 125.000'), 'amount in rupiah without decimals');
      assert.ok(html.includes('pending'), 'status');
      if (method === 'qris') {
        assert.match(html, /QR string<\/th><td>000201/);
        // The hosted page shows the QR image; scanning it gives the page's QR string.
        const src = /<img class="qr" src="([^"]+)"/.exec(html)?.[1] ?? '';
        const img = await fetch(viaInternal(gw, src));
        assert.equal(img.status, 200);
        assert.equal(img.headers.get('content-type'), 'image/png');
        const scanned = decodeQrPng(Buffer.from(await img.arrayBuffer()));
        assert.ok(html.includes(`QR string</th><td>${scanned}</td>`), scanned);
      } else {
        assert.ok(!html.includes('<img'), 'no QR image for a virtual account');
        if (method === 'va_mandiri') assert.match(html, /Bill key<\/th><td>\d{12}</);
        else assert.match(html, /VA number<\/th><td>\d{11,16}</);
      }

      const view = await gw.v1(app, 'GET', `/v1/payments/${body.payment_id}`);
      assert.equal(view.status, 200);
      const p = view.json<Record<string, unknown>>();
      assert.equal(p.provider, 'idr_psp');
      assert.equal(p.status, 'initiated');
      assert.match(String(p.provider_ref), /^[0-9a-f-]{36}$/);
      assert.ok(body.checkout_url?.endsWith(`/snap/v2/vtweb/${String(p.provider_ref)}`));
    });
  }

  for (const [method, name] of [
    ['qris', 'qris'],
    ['va_bca', 'bca_va'],
    ['va_mandiri', 'echannel'],
  ] as const) {
    test(`${method} without email: 502 with the provider's text`, async () => {
      const res = await gw.v1(
        app,
        'POST',
        '/v1/payments',
        paymentBody(method, { email: undefined, external_user_id: `no-mail-${method}` }),
      );
      assert.equal(res.status, 502);
      assert.equal(
        res.text,
        `provider checkout failed: customer_details.email is required for ${name}`,
      );
    });
  }

  test('an empty email is missing too', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody('va_bri', { email: '' }));
    assert.equal(res.status, 502);
    assert.equal(
      res.text,
      'provider checkout failed: customer_details.email is required for bri_va',
    );
  });

  test('a simulator action on an unknown reference: 404 unknown reference', async () => {
    const res = await fetch(`${gw.url}/sim/idr_psp/payments/no-such-ref/pay`, { method: 'POST' });
    assert.equal(res.status, 404);
    assert.equal(await res.text(), 'unknown reference');
    const page = await fetch(`${gw.url}/sim/idr_psp/snap/v2/vtweb/no-such-token`);
    assert.equal(page.status, 404);
    assert.equal(await page.text(), 'unknown reference');
  });

  test('an unknown action on a known reference: 404 unknown action', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody('qris'));
    const ref = (await gw.v1(app, 'GET', `/v1/payments/${res.json().payment_id}`)).json()
      .provider_ref as string;
    const act = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/refund`, { method: 'POST' });
    assert.equal(act.status, 404);
    assert.equal(await act.text(), 'unknown action');
  });
});

describe('direct QR registration (IDR_PSP_DIRECT_QR=true)', () => {
  let gw: TestGateway;
  let app: AppWithSecrets;
  before(async () => {
    gw = await startTestGateway({ IDR_PSP_DIRECT_QR: 'true' });
    app = await gw.createApp();
  });
  after(async () => {
    await gw?.stop();
  });

  test('qris: 201 carries qr_string and qr_image_url', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody('qris'));
    assert.equal(res.status, 201, res.text);
    const body = res.json<Record<string, string>>();
    assert.deepEqual(Object.keys(body).sort(), [
      'checkout_url',
      'payment_id',
      'qr_image_url',
      'qr_string',
      'status',
    ]);
    // EMVCo payload: payload format 01, dynamic (12), amount tag 54, CRC last.
    assert.match(body.qr_string ?? '', /^000201010212.*5406125000.*6304[0-9A-F]{4}$/);
    const p = (await gw.v1(app, 'GET', `/v1/payments/${body.payment_id}`)).json();
    assert.equal(
      body.qr_image_url,
      `${gw.running.gw.urls.public}/sim/idr_psp/v2/qris/${String(p.provider_ref)}/qr-code`,
    );
    assert.equal(body.checkout_url, body.qr_image_url);

    const img = await fetch(viaInternal(gw, body.qr_image_url ?? ''), {
      headers: { accept: 'image/*' },
    });
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/png');
    // A QR decoder we did not write reads the QRIS string back, CRC and all.
    const scanned = decodeQrPng(Buffer.from(await img.arrayBuffer()));
    assert.equal(scanned, body.qr_string);
    assert.equal(parseTlv(scanned).get('63'), crc16(scanned.slice(0, -4)));

    const page = await fetch(viaInternal(gw, body.checkout_url ?? ''), {
      headers: { accept: 'text/html' },
    });
    assert.equal(page.status, 200);
    const html = await page.text();
    for (const label of ['Pay', 'Fail', 'Cancel', 'Expire']) {
      assert.ok(html.includes(`>${label}</button>`), `${label} button`);
    }
    assert.ok(html.includes(body.qr_string ?? '-'));
    assert.ok(html.includes(`<img class="qr" src="${body.qr_image_url}"`), 'the page shows the QR');
  });

  test('virtual accounts still go through the hosted page, without QR fields', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody('va_bni'));
    assert.equal(res.status, 201, res.text);
    const body = res.json<Record<string, string>>();
    assert.equal(body.qr_string, undefined);
    assert.equal(body.qr_image_url, undefined);
    assert.match(body.checkout_url ?? '', /\/sim\/idr_psp\/snap\/v2\/vtweb\//);
  });

  test('qris without email: 502 with the provider text', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody('qris', { email: null }));
    assert.equal(res.status, 502);
    assert.equal(res.text, 'provider checkout failed: customer_details.email is required for qris');
  });
});
