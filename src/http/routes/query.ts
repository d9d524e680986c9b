import type { FastifyRequest } from 'fastify';

export type Query = Partial<Record<string, string>>;

/** A query parameter; a repeated one (?a=1&a=2) counts as its first value. */
export function one(req: FastifyRequest, name: string): string | undefined {
  const v: unknown = (req.query as Query)[name];
  return Array.isArray(v) ? (v[0] as string | undefined) : (v as string | undefined);
}
