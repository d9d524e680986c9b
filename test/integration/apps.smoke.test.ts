import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw?.stop();
});

test('an app created through the admin API can sign a read', async () => {
  const app = await gw.createApp({ webhook_url: 'http://127.0.0.1:9/hook' });
  assert.match(app.api_key, /^pk_/);
  const res = await gw.v1(app, 'GET', '/v1/payments/' + '0'.repeat(32));
  assert.equal(res.status, 404);
  assert.equal(res.text, 'payment not found');
});
