/**
 * Browser tests drive the Chromium build the npm package @sparticuz/chromium ships (see
 * scripts/chromium.ts; never a browser downloaded at run time) with playwright-core, against
 * a real gateway serving the built dashboard.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { obtainChromium } from '../../scripts/chromium.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST_INDEX = path.join(ROOT, 'dashboard/dist/index.html');
const BUILD_LOCK = path.join(ROOT, 'dashboard/.build-lock');
export const SCREENSHOTS = path.join(ROOT, 'test-results/screenshots');

/** The newest modification time of the dashboard's sources. */
function sourcesTime(): number {
  let newest = 0;
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['src', 'index.html', 'vite.config.ts']) walk(path.join(ROOT, 'dashboard', p));
  return newest;
}

function built(): boolean {
  const st = statSync(DIST_INDEX, { throwIfNoEntry: false });
  return st !== undefined && st.mtimeMs >= sourcesTime();
}

/**
 * Builds the dashboard when dashboard/dist is missing or older than its sources, once even
 * when several test files start at the same time.
 */
export async function ensureDashboardBuilt(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!built()) {
    try {
      mkdirSync(BUILD_LOCK);
    } catch {
      // Another test file is building; a lock older than two minutes is from a dead run.
      const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 120_000)
        rmSync(BUILD_LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('timed out waiting for the dashboard build');
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      const res = spawnSync(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/vite/bin/vite.js'),
          'build',
          'dashboard',
          '--logLevel',
          'warn',
        ],
        { cwd: ROOT, encoding: 'utf8' },
      );
      if (res.status !== 0) throw new Error(`dashboard build failed:\n${res.stdout}${res.stderr}`);
    } finally {
      rmSync(BUILD_LOCK, { recursive: true, force: true });
    }
  }
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium on a fresh profile. The test command unpacks the browser before the tests
 * start; a test file run on its own unpacks it here.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await obtainChromium();
  const profile = mkdtempSync(path.join(os.tmpdir(), 'paygate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browser.executablePath,
    env: { ...process.env, ...browser.env },
    headless: true,
    args: [
      '--no-sandbox',
      '--no-zygote',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    timezoneId: 'Asia/Jakarta',
  });
  // How long a step waits for the page; the assertions themselves are exact. Two clean-clone
  // CI runs on a busy machine saw elements that appear in under a second here take over 10 s.
  context.setDefaultTimeout(30_000);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A full-page screenshot under test-results/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * The README's picture of the dashboard (docs/dashboard-overview.png), written only when
 * README_SCREENSHOT=1, so an ordinary test run never changes a tracked file.
 */
export async function readmeScreenshot(page: Page): Promise<void> {
  if (process.env.README_SCREENSHOT !== '1') return;
  await page.screenshot({ path: path.join(ROOT, 'docs/dashboard-overview.png'), fullPage: true });
}

/** Signs in on a page that shows the sign-in screen. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new page of the dashboard at `gatewayUrl`, signed in, on the Overview. */
export async function signedInPage(
  browser: Browser,
  gatewayUrl: string,
  token: string,
): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${gatewayUrl}/dashboard`);
  await signIn(page, token);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/** Text with runs of whitespace (Intl's narrow spaces included) made one plain space. */
export function norm(s: string | null): string {
  return (s ?? '').replace(/\s+/g, ' ').trim();
}

/** The dashboard's money format (dashboard/src/format.ts) in the tests' en-US locale. */
export function money(minor: number, currency: string): string {
  const exp = currency === 'IDR' ? 0 : 2;
  return norm(
    new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      currencyDisplay: 'code',
      minimumFractionDigits: exp,
      maximumFractionDigits: exp,
    }).format(minor / 10 ** exp),
  );
}
