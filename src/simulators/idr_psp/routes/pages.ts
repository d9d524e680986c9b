import type { FastifyInstance } from 'fastify';
import { header, sendText } from '../../reply.js';
import { byRef, type Sim } from '../context.js';
import { renderPage } from '../page.js';
import { qrPng } from '../qrImage.js';

/** The buyer's pages: the Snap page, the Pay page and the QR code. */
export function registerPageRoutes(app: FastifyInstance, sim: Sim): void {
  app.get<{ Params: { token: string } }>('/snap/v2/vtweb/:token', async (req, reply) => {
    const tx = await byRef(sim, req.params.token);
    if (!tx || tx.token !== req.params.token) return sendText(reply, 404, 'unknown reference');
    return renderPage(sim, reply, req.params.token, tx);
  });

  app.get<{ Params: { ref: string } }>('/payments/:ref', async (req, reply) => {
    const tx = await byRef(sim, req.params.ref);
    if (!tx) return sendText(reply, 404, 'unknown reference');
    return renderPage(sim, reply, req.params.ref, tx);
  });

  // The Core API's generate-qr-code action. Browsers navigating here (it is the checkout_url
  // of a direct QR payment) get the checkout page; image requests get the QR picture.
  app.get<{ Params: { id: string } }>('/v2/qris/:id/qr-code', async (req, reply) => {
    const tx = await byRef(sim, req.params.id);
    if (!tx || tx.transaction_id !== req.params.id || !tx.qr_string) {
      return sendText(reply, 404, 'unknown reference');
    }
    if ((header(req, 'accept') ?? '').includes('text/html')) {
      return renderPage(sim, reply, req.params.id, tx);
    }
    return reply
      .code(200)
      .type('image/png')
      .send(await qrPng(tx.qr_string));
  });
}
