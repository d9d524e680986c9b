import { apiError } from '../domain/errors.js';
import { safeEqual } from './crypto.js';

export function authenticateAdmin(authorization: string | undefined, adminToken: string): void {
  const m = /^Bearer (.+)$/.exec(authorization ?? '');
  if (!m || !safeEqual(m[1] as string, adminToken)) throw apiError('unauthorized');
}
