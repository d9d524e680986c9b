import type { ComponentChildren } from 'preact';
import { query } from './api';
import { Empty, FilterSelect, Load, PageTitle, useApi } from './components';
import { href, navigate } from './router';

/** Rows per page of every cursor list. */
export const PAGE_SIZE = 50;

export interface ListFilter<K extends string> {
  name: K;
  label: string;
  /** The text of the empty choice (no filter). */
  all: string;
  values: readonly string[];
}

/**
 * A list page of the admin API, newest first, PAGE_SIZE at a time: its filters (each a
 * query parameter of the page and of the request), the rows or an empty state, and the
 * pager (back to the newest, or the rows before the last one shown). The page renders only
 * its table.
 */
export function ListPage<K extends string, T>(props: {
  title: string;
  /** The dashboard's path of the page, e.g. /refunds. */
  path: string;
  /** The admin API list, e.g. /admin/refunds, and the field of its answer with the rows. */
  api: string;
  field: string;
  /** What is loading ("ledger entries"), and the rows' noun in the empty state ("entries"). */
  what: string;
  noun: string;
  filters: Record<K, string>;
  selects: readonly ListFilter<K>[];
  /** The cursor the page shows rows before; "" for the newest. */
  before: string;
  cursor: (row: T) => string;
  children: (rows: T[]) => ComponentChildren;
}) {
  const { path, filters, before } = props;
  const r = useApi<Record<string, T[] | string | null>>(
    `${props.api}${query({ ...filters, limit: PAGE_SIZE, before })}`,
  );
  return (
    <>
      <PageTitle title={props.title}>{props.title}</PageTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {props.selects.map((s) => (
          <FilterSelect
            key={s.name}
            path={path}
            filters={filters}
            name={s.name}
            label={s.label}
            all={s.all}
            values={s.values}
          />
        ))}
      </form>
      <Load r={r} what={props.what}>
        {(data) => {
          const rows = (data[props.field] ?? []) as T[];
          const last = rows[rows.length - 1];
          // A bounded list (the ledger, docs/api.md#ledger) names the next page's cursor:
          // null is the end, and a short page with a cursor is not. Else a short page is.
          const bounded = 'next_before' in data;
          const next = bounded
            ? (data.next_before as string | null)
            : rows.length < PAGE_SIZE || !last
              ? null
              : props.cursor(last);
          return (
            <>
              {rows.length === 0 ? (
                <Empty>
                  {bounded && next !== null
                    ? `No match among the ${props.noun} searched so far: Older → searches further.`
                    : before
                      ? `No older ${props.noun}.`
                      : `No ${props.noun}.`}
                </Empty>
              ) : (
                props.children(rows)
              )}
              <nav class="pager" aria-label="Pages">
                <button
                  type="button"
                  disabled={!before}
                  onClick={() => navigate(href(path, filters))}
                >
                  ← Newest
                </button>
                <button
                  type="button"
                  disabled={next === null}
                  onClick={() =>
                    next !== null && navigate(href(path, { ...filters, before: next }))
                  }
                >
                  Older →
                </button>
              </nav>
            </>
          );
        }}
      </Load>
    </>
  );
}
