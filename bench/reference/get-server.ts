/**
 * Reference for the signed GET scenario: a bare Fastify route that does the same HMAC
 * verification as the gateway (the same function, secret held in memory) and returns a
 * fixed JSON body of the same size as a payment. No database.
 */
import Fastify from 'fastify';
import type { AppRow } from '../../src/db/apps.js';
import { authenticateApp } from '../../src/auth/appAuth.js';

const apiKey = process.env.REF_API_KEY ?? '';
const secret = process.env.REF_SECRET ?? '';
const fakeApp = { id: 'app_ref' } as AppRow;
const body = JSON.stringify({
  payment_id: '0'.repeat(32),
  status: 'succeeded',
  amount_minor: 125000,
  currency: 'IDR',
  method: 'qris',
  provider: 'idr_psp',
  provider_ref: 'c0ffee00-0000-4000-8000-000000000000',
  metadata: { order: 'A-1' },
  invoice_number: '',
  last_error: '',
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
});

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, b, done) => done(null, b));
app.get('/ready', async () => 'ok');
app.get<{ Params: { id: string } }>('/v1/payments/:id', async (req, reply) => {
  const h = (n: string) => req.headers[n] as string | undefined;
  try {
    await authenticateApp(
      {
        method: req.method,
        path: req.url.split('?')[0] as string,
        rawBody: Buffer.alloc(0),
        key: h('x-pay-key'),
        timestamp: h('x-pay-timestamp'),
        signature: h('x-pay-signature'),
      },
      async (k) => (k === apiKey ? { app: fakeApp, signingSecret: secret } : null),
      Date.now(),
    );
  } catch {
    return reply.code(401).type('text/plain; charset=utf-8').send('bad signature');
  }
  return reply.code(200).type('application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
