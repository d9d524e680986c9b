import type { FastifyReply } from 'fastify';
import { sendJson } from '../reply.js';
import { apiError, type WpApiError } from './orders.js';

export function sendApiError(reply: FastifyReply, err: WpApiError): FastifyReply {
  return sendJson(reply, err.status, err.body);
}

/** The provider's 404 for an order id it does not know (or not for this client). */
export function notFound(id: string): WpApiError {
  return apiError(404, {
    field: 'order_id',
    value: id,
    location: 'path',
    issue: 'INVALID_RESOURCE_ID',
    description:
      'Specified resource ID does not exist. Please check the resource ID and try again.',
  });
}
