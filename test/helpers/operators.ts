/** Operator accounts and personal tokens for tests, made over the admin API with ADMIN_TOKEN. */
import type { Role } from '../../src/auth/roles.js';
import { ADMIN_TOKEN, type TestGateway } from './gateway.js';

export interface TestOperator {
  id: string;
  email: string;
  role: Role;
  /** A personal token (pgo_...) of this operator. */
  token: string;
  tokenId: string;
}

let n = 0;

/** `by`: the credential that makes it (ADMIN_TOKEN unless given). */
export async function createOperator(
  gw: TestGateway,
  role: Role,
  opts: { email?: string; by?: string } = {},
): Promise<TestOperator> {
  const email = opts.email ?? `${role}-${process.pid}-${++n}@example.com`;
  const by = opts.by ?? ADMIN_TOKEN;
  const res = await gw.admin('POST', '/admin/operators', { email, name: `A ${role}`, role }, by);
  if (res.status !== 201) throw new Error(`createOperator: ${res.status} ${res.text}`);
  const op = res.json<{ id: string }>();
  const t = await gw.admin(
    'POST',
    `/admin/operators/${op.id}/tokens`,
    {
      name: `${role} script`,
      expires_in_days: 30,
    },
    by,
  );
  if (t.status !== 201) throw new Error(`createToken: ${t.status} ${t.text}`);
  const tok = t.json<{ id: string; token: string }>();
  return { id: op.id, email, role, token: tok.token, tokenId: tok.id };
}
