import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived its last full collection, in
 * percent (issue 29). V8 sizes that headroom from the heap's limit: on a machine with more
 * than 16 GB of memory the limit is 4 GB and the headroom up to 4× the live heap, so a
 * gateway holding 60 MiB of live objects (half of them the settled-payment cache's bodies,
 * which have since moved to a ring buffer outside the heap) let its heap reach 150 to
 * 350 MiB between collections: the resident set of a soak rose and swung with it (docs/performance.md, "Resident memory under a soak"). 20 % keeps the heap
 * within 1.2× of the live objects, for more frequent but smaller collections.
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * Sets V8's heap growth (the flag is read at every collection, so setting it at start-up is
 * enough), unless the operator chose one with `--heap-growing-percent` on the command line
 * (Node refuses this flag in NODE_OPTIONS; the check of it there is harmless), which then wins.
 */
export function boundHeapGrowth(percent = HEAP_GROWING_PERCENT): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some(
    (arg) => /^--heap[-_]growing[-_]percent\b/.test(arg),
  );
  if (given) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
