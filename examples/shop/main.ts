/**
 * `npm run example:shop`: the example shop beside a running gateway.
 *
 *   GATEWAY_URL   the gateway (default http://localhost:8080)
 *   ADMIN_TOKEN   the gateway's admin token: the shop finds its test-mode app "Example shop"
 *                 with it, or creates it once, and keeps its keys in
 *                 DATA_DIR/example-shop-app.json (DATA_DIR default ./data, like the gateway's)
 *   SHOP_PORT     default 3000; SHOP_HOST default 127.0.0.1;
 *   SHOP_PUBLIC_URL default http://<SHOP_HOST>:<SHOP_PORT>
 *
 * With an app of your own instead of ADMIN_TOKEN: PAYGATE_API_KEY, PAYGATE_SIGNING_SECRET
 * and PAYGATE_WEBHOOK_SECRET (its webhook_url must be <SHOP_PUBLIC_URL>/webhooks/paygate).
 */
import path from 'node:path';
import { startShop, type AppCredentials } from './shop.js';

const env = process.env;
const credentials: AppCredentials | undefined =
  env.PAYGATE_API_KEY && env.PAYGATE_SIGNING_SECRET && env.PAYGATE_WEBHOOK_SECRET
    ? {
        apiKey: env.PAYGATE_API_KEY,
        signingSecret: env.PAYGATE_SIGNING_SECRET,
        webhookSecret: env.PAYGATE_WEBHOOK_SECRET,
      }
    : undefined;
if (!credentials && !env.ADMIN_TOKEN) {
  process.stderr.write(
    'example shop: set ADMIN_TOKEN (printed by `npm start`) or PAYGATE_API_KEY, ' +
      'PAYGATE_SIGNING_SECRET and PAYGATE_WEBHOOK_SECRET\n',
  );
  process.exit(1);
}

const shop = await startShop({
  gatewayUrl: env.GATEWAY_URL || 'http://localhost:8080',
  ...(env.ADMIN_TOKEN ? { adminToken: env.ADMIN_TOKEN } : {}),
  // Beside the gateway's own data: both go when ./data is deleted, and survive restarts.
  stateFile: path.resolve(env.DATA_DIR || './data', 'example-shop-app.json'),
  ...(credentials ? { credentials } : {}),
  port: Number(env.SHOP_PORT || 3000),
  host: env.SHOP_HOST || '127.0.0.1',
  ...(env.SHOP_PUBLIC_URL ? { publicUrl: env.SHOP_PUBLIC_URL } : {}),
}).catch((err: unknown) => {
  process.stderr.write(`example shop: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

process.stdout.write(
  `\nExample shop at ${shop.url}` +
    (shop.appId ? ` (gateway app ${shop.appId}, test mode)` : '') +
    `\nWebhooks: ${shop.url}/webhooks/paygate\n\n`,
);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => void shop.stop().then(() => process.exit(0)));
}
