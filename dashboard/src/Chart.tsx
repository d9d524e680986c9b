import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { exponent, formatMoney } from './format';
import type { MinorSum } from './types';

export interface DailyPoint {
  day: string;
  succeeded_count: number;
  succeeded_minor: MinorSum;
}

/** Daily succeeded amounts of one currency as bars; days are UTC calendar days. */
export function DailyChart({ currency, points }: { currency: string; points: DailyPoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const scale = 10 ** exponent(currency);
    const xs = points.map((p) => Date.parse(`${p.day}T00:00:00Z`) / 1000);
    // Bar heights need no exactness; the table and tooltips format the exact figures.
    const ys = points.map((p) => Number(p.succeeded_minor) / scale);
    const width = () => Math.max(260, el.clientWidth);
    const opts: uPlot.Options = {
      width: width(),
      height: 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      legend: { show: true, live: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: '#4b5563', grid: { stroke: '#e5e7eb' }, ticks: { stroke: '#e5e7eb' } },
        {
          stroke: '#4b5563',
          grid: { stroke: '#e5e7eb' },
          ticks: { stroke: '#e5e7eb' },
          size: 70,
          values: (_u, splits) =>
            splits.map((v) => new Intl.NumberFormat(undefined, { notation: 'compact' }).format(v)),
        },
      ],
      series: [
        {
          label: 'Day (UTC)',
          value: (_u, v) => (v === null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)),
        },
        {
          label: currency,
          stroke: '#1d4ed8',
          fill: 'rgba(37, 99, 235, 0.55)',
          width: 0,
          paths: uPlot.paths.bars?.({ size: [0.7, 40] }),
          points: { show: false },
          value: (_u, v) => (v === null ? '—' : formatMoney(Math.round(v * scale), currency)),
        },
      ],
    };
    const plot = new uPlot(opts, [xs, ys], el);
    const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [currency, points]);
  return <div class="chart" ref={box} role="img" aria-label={`Daily succeeded ${currency}`} />;
}

/**
 * The buckets in day order with any missing day between the first and the last as zero (the
 * gateway's own "today" ends the window, so the browser's clock does not decide it).
 */
export function fillDays(buckets: DailyPoint[]): DailyPoint[] {
  const sorted = [...buckets].sort((a, b) => a.day.localeCompare(b.day));
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (!first || !last) return [];
  const byDay = new Map(sorted.map((b) => [b.day, b]));
  const out: DailyPoint[] = [];
  const end = Date.parse(`${last.day}T00:00:00Z`);
  for (let t = Date.parse(`${first.day}T00:00:00Z`); t <= end; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, succeeded_count: 0, succeeded_minor: 0 });
  }
  return out;
}
