import type pg from 'pg';

// The simulators take a pg pool from their host (the gateway's, mounted in it; one of their
// own as a process) and need nothing of the gateway's database code besides it.
export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;
