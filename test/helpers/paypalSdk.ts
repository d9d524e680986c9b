/**
 * PayPal's own server SDK pointed at the wallet_psp simulator, for tests that take the
 * provider's side of the wire. The SDK only knows PayPal's hosts; its HTTP layer (axios) is
 * given an adapter that sends each request to the simulator over loopback instead, changing
 * nothing else: method, path, headers, body and the answer are what the SDK made and reads.
 */
import { Client, Environment } from '@paypal/paypal-server-sdk';

/** The host the SDK's sandbox environment calls. */
export const PAYPAL_SDK_SANDBOX = 'https://api-m.sandbox.paypal.com';

interface AxiosLikeConfig {
  url?: string;
  method?: string;
  headers?: { toJSON?: () => Record<string, unknown> } & Record<string, unknown>;
  data?: unknown;
  auth?: { username: string; password: string };
}

function loopbackAdapter(simBase: string) {
  return async (config: AxiosLikeConfig) => {
    const url = config.url ?? '';
    if (!url.startsWith(PAYPAL_SDK_SANDBOX)) throw new Error(`unexpected SDK URL ${url}`);
    const raw = config.headers?.toJSON ? config.headers.toJSON() : (config.headers ?? {});
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (v !== undefined && v !== null && v !== false) headers[k.toLowerCase()] = String(v);
    }
    if (config.auth) {
      const basic = `${config.auth.username}:${config.auth.password}`;
      headers.authorization = `Basic ${Buffer.from(basic, 'utf8').toString('base64')}`;
    }
    const method = (config.method ?? 'get').toUpperCase();
    const res = await fetch(simBase + url.slice(PAYPAL_SDK_SANDBOX.length), {
      method,
      headers,
      body: config.data === undefined || config.data === null ? undefined : String(config.data),
    });
    const text = await res.text();
    return {
      data: text,
      status: res.status,
      statusText: res.statusText,
      headers: Object.fromEntries(res.headers.entries()),
      config,
      request: {},
    };
  };
}

/** A PayPal SDK client whose sandbox is the simulator at simBase (…/sim/wallet_psp). */
export function paypalClient(
  simBase: string,
  credentials: { clientId: string; clientSecret: string },
): Client {
  return new Client({
    environment: Environment.Sandbox,
    clientCredentialsAuthCredentials: {
      oAuthClientId: credentials.clientId,
      oAuthClientSecret: credentials.clientSecret,
    },
    timeout: 10_000,
    httpClientOptions: { retryConfig: { maxNumberOfRetries: 0 } },
    unstable_httpClientOptions: { adapter: loopbackAdapter(simBase) },
  });
}

type Schema = object;
interface SchemaModule {
  validateAndMap(value: unknown, schema: Schema): { errors: false | { message?: string }[] };
}

/**
 * The SDK's own model schemas (not exported by its package entry point, so loaded from the
 * installed package's files): the order, captured payment and refund of webhook resources.
 */
export async function paypalSchemas() {
  const root = new URL('.', import.meta.resolve('@paypal/paypal-server-sdk'));
  const load = async <T>(file: string) => (await import(new URL(file, root).href)) as T;
  const schema = await load<SchemaModule>('schema.js');
  const { orderSchema } = await load<{ orderSchema: Schema }>('models/order.js');
  const { capturedPaymentSchema } = await load<{ capturedPaymentSchema: Schema }>(
    'models/capturedPayment.js',
  );
  const { refundSchema } = await load<{ refundSchema: Schema }>('models/refund.js');
  const bySchema = { order: orderSchema, capture: capturedPaymentSchema, refund: refundSchema };
  /** The schema's errors for a value ([] when the SDK accepts it). */
  return (kind: keyof typeof bySchema, value: unknown): string[] => {
    const result = schema.validateAndMap(value, bySchema[kind]);
    return result.errors === false ? [] : result.errors.map((e) => e.message ?? String(e));
  };
}
