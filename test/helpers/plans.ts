/** What the plan tests read of `EXPLAIN (FORMAT JSON)`, and the app their payments belong to. */
import type { Queryable } from '../../src/db/pool.js';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The app `app_plans` (test mode, idr_psp), which the plan tests' payments reference. */
export async function insertPlansApp(db: Queryable): Promise<void> {
  await db.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_plans', 'plans', 'test', 'key_plans', 'x', 'x', '{idr_psp}', '{}')`,
  );
}
