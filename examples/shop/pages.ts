/** The shop's HTML: inline styles and script only, nothing loaded from elsewhere. */
import type { Order, Product } from './shop.js';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function rupiah(amount: number): string {
  return `Rp ${amount.toLocaleString('en-US').replace(/,/g, '.')}`;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
header{display:flex;justify-content:space-between;align-items:baseline;border-bottom:1px solid #ddd}
.products{display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:1rem;margin-top:1rem}
.product{border:1px solid #ddd;border-radius:6px;padding:1rem}
button{font-size:1rem;padding:.5rem 1rem;cursor:pointer}
input{font-size:1rem;padding:.3rem;width:100%;box-sizing:border-box;margin:.3rem 0 .6rem}
.status{font-size:1.4rem;font-weight:600}
.status[data-status=succeeded]{color:#17702e}.status[data-status=failed],.status[data-status=canceled]{color:#a11}
.note{color:#666;font-size:.9rem}code{word-break:break-all}`;

function layout(title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Example shop</title><style>${STYLE}</style></head>
<body><header><h1><a href="/">Example shop</a></h1><span class="note">test mode, no money moves</span></header>
${body}${script ? `<script>${script}</script>` : ''}</body></html>`;
}

export function productsPage(products: readonly Product[]): string {
  const cards = products
    .map(
      (p) => `<form class="product" method="post" action="/checkout">
<h2>${escapeHtml(p.name)}</h2><p>${escapeHtml(p.description)}</p><p><strong>${rupiah(p.amount)}</strong></p>
<input type="hidden" name="product" value="${escapeHtml(p.id)}">
<label>Email for the receipt<input type="email" name="email" required value="buyer@example.com"></label>
<button type="submit">Buy ${escapeHtml(p.name)} with QRIS</button></form>`,
    )
    .join('');
  return layout('Products', `<div class="products">${cards}</div>`);
}

export const STATUS_TEXT: Record<Order['status'], string> = {
  initiated: 'Waiting for payment',
  succeeded: 'Paid',
  failed: 'Payment failed',
  canceled: 'Canceled',
};

export function orderPage(order: Order): string {
  const qr =
    order.qrString && order.qrImageUrl
      ? `<h2>Scan to pay</h2><p><img alt="QRIS code" src="${escapeHtml(order.qrImageUrl)}"></p>
<p class="note">QR string: <code>${escapeHtml(order.qrString)}</code></p>
<p><a href="${escapeHtml(order.checkoutUrl)}">Open the provider's test checkout page</a></p>`
      : `<p><a id="checkout" href="${escapeHtml(order.checkoutUrl)}">Back to the payment page</a></p>`;
  const body = `<h2>Order ${escapeHtml(order.id)}</h2>
<p>${escapeHtml(order.product.name)}: ${rupiah(order.product.amount)}</p>
<p>Status: <span id="status" class="status" data-status="${order.status}">${STATUS_TEXT[order.status]}</span></p>
<div id="pay"${order.status === 'initiated' ? '' : ' hidden'}>${qr}</div>
<h3>Webhook events received</h3><ul id="events">${order.events
    .map((e) => `<li>${escapeHtml(e.type)}</li>`)
    .join('')}</ul>
<p class="note">Payment ${escapeHtml(order.paymentId)}. This page updates itself.</p>`;
  // Polls the shop (not the gateway) once a second until the order is final.
  const script = `const statusText=${JSON.stringify(STATUS_TEXT)};
async function refresh(){
  const res=await fetch(location.pathname+'/status',{cache:'no-store'});
  if(res.ok){const o=await res.json();const s=document.getElementById('status');
    s.dataset.status=o.status;s.textContent=statusText[o.status];
    document.getElementById('pay').hidden=o.status!=='initiated';
    const ul=document.getElementById('events');ul.replaceChildren(...o.events.map(e=>{const li=document.createElement('li');li.textContent=e.type;return li;}));
    if(o.status!=='initiated'&&o.events.length>0)return;}
  setTimeout(refresh,1000);
}
setTimeout(refresh,1000);`;
  return layout(`Order ${order.id}`, body, script);
}

export function errorPage(message: string): string {
  return layout(
    'Checkout failed',
    `<h2>Checkout failed</h2><p id="error">${escapeHtml(message)}</p><p><a href="/">Back to the shop</a></p>`,
  );
}
