/**
 * `npx tsx bench/serialize.ts`: CPU per answer of the schema-compiled writer
 * (src/domain/serialize.ts) against the view plus JSON.stringify it replaced, for the v1
 * Payment answer (docs/performance.md#answers-written-from-their-schemas-issue-23). Process CPU
 * time, not wall time, so other load on the machine moves it less; rounds alternate.
 */
import { serialize } from '../src/domain/serialize.js';

const at = new Date('2026-11-26T04:00:00.123Z');
const row = {
  id: '0123456789abcdef0123456789abcdef',
  app_id: 'app_1a7c63dbe650b204c67e4daf',
  status: 'succeeded',
  amount_minor: 150000,
  currency: 'IDR',
  method: 'qris',
  provider: 'idr_psp',
  provider_ref: 'ebfd8a96-2791-4c41-a910-6fe587bb0ce9',
  metadata: { order_id: 'A-1', customer: { tier: 'gold' } },
  invoice_number: null,
  last_error: '',
  created_at: at,
  updated_at: at,
  email: null,
  return_url: 'https://shop.example/return',
};
// The view the Payment schema replaced (services/payments/read.ts before issue 23).
const view = (p: typeof row) => ({
  payment_id: p.id,
  status: p.status,
  amount_minor: p.amount_minor,
  currency: p.currency,
  method: p.method,
  provider: p.provider,
  provider_ref: p.provider_ref ?? '',
  metadata: p.metadata,
  invoice_number: p.invoice_number ?? '',
  last_error: p.last_error,
  created_at: p.created_at.toISOString(),
  updated_at: p.updated_at.toISOString(),
});
if (serialize('Payment', row) !== JSON.stringify(view(row))) throw new Error('outputs differ');

const N = 200_000;
const cpuNs = (f: () => number): number => {
  const start = process.cpuUsage();
  let bytes = 0;
  for (let i = 0; i < N; i++) bytes += f();
  const d = process.cpuUsage(start);
  if (bytes === 0) throw new Error('nothing written');
  return ((d.user + d.system) * 1000) / N;
};
const before: number[] = [];
const after: number[] = [];
for (let round = 0; round < 8; round++) {
  before.push(cpuNs(() => JSON.stringify(view(row)).length));
  after.push(cpuNs(() => serialize('Payment', row).length));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
console.log(`view + JSON.stringify: median ${Math.round(median(before))} ns CPU per answer`);
console.log(`serialize('Payment'):  median ${Math.round(median(after))} ns CPU per answer`);
