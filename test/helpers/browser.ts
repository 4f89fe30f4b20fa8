import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe } from 'vitest';
import type { TestAccount, TestServer } from './server.js';

/** Debian's Chromium, which `.ci/run` installs; `npx playwright install` cannot download here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const available = existsSync(CHROMIUM);
if (!available && process.env.CI) {
  throw new Error(`CI is set but ${CHROMIUM} is missing: the browser tests cannot run`);
}
let warned = false;

/**
 * `describe` for tests that need a real browser: skipped, with one visible line, on a machine
 * without Chromium; in CI a missing browser fails instead (above).
 */
export function describeInBrowser(name: string, tests: () => void): void {
  if (!available && !warned) {
    warned = true;
    process.stderr.write(
      `Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`,
    );
  }
  describe.skipIf(!available)(name, tests);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** What a page said it could not do: console errors (CSP refusals among them) and exceptions. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's violations on the page as it is now, of every impact (the pages people read first
 * are held to none at all; issue 28). The page must have been opened in a context with
 * `bypassCSP: true`: our CSP (rightly) refuses the injected script.
 */
export async function accessibilityViolations(
  page: Page,
): Promise<{ id: string; impact: string | null; targets: string[][] }[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } })
      .axe;
    return (await axe.run()).violations as AxeViolation[];
  });
  return violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    targets: v.nodes.map((node) => node.target),
  }));
}

/**
 * axe-core's serious and critical violations on the page as it is now. The page must have been
 * opened in a context with `bypassCSP: true`: our CSP (rightly) refuses the injected script.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } })
      .axe;
    return (await axe.run()).violations as AxeViolation[];
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * A browser with one page the size of a laptop screen, watched for problems. `bypassCSP` only lets
 * axe-core's script in; the pages' own policies are what the tests run under otherwise.
 */
export async function openBrowserPage() {
  const browser = await launchBrowser();
  const context = await browser.newContext({
    bypassCSP: true,
    viewport: { width: 1200, height: 900 },
  });
  const page = await context.newPage();
  return { browser, context, page, problems: watchProblems(page) };
}

/**
 * Every chart of a statistics page drawn, as a reader scrolling down the page would have them
 * (a chart is drawn when it nears the viewport), then the page back at its top.
 */
export async function drawAllCharts(page: Page): Promise<void> {
  await page.waitForSelector('#chart-data', { state: 'attached' });
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
    for (const chart of document.querySelectorAll('.chart[data-key]')) {
      chart.scrollIntoView({ block: 'center' });
      // Two frames: the observer sees it at the first's rendering step.
      await frame();
      await frame();
    }
    window.scrollTo(0, 0);
  });
  await page.waitForSelector('body[data-charts-drawn]');
}

/** The widths (a laptop, a phone) and schemes issue 28's pages are checked at. */
export const AUDIT_WIDTHS = [1280, 390] as const;
export const AUDIT_SCHEMES = ['light', 'dark'] as const;

/**
 * A context for checking pages at `width` px in `scheme` (390 px: a phone, touch and mobile
 * viewport). `bypassCSP` only lets axe-core's script in.
 */
export function auditContext(browser: Browser, width: number, scheme: 'light' | 'dark') {
  return browser.newContext({
    bypassCSP: true,
    viewport: { width, height: width === 390 ? 844 : 900 },
    colorScheme: scheme,
    isMobile: width === 390,
    hasTouch: width === 390,
  });
}

/** A browser's page as openBrowserPage opens it. */
export type BrowserPage = Awaited<ReturnType<typeof openBrowserPage>>;

/**
 * The server listening on a free port of 127.0.0.1 (its URL), and a browser's page signed in to
 * its dashboard with the account's API key, as a reader signs in.
 */
export async function signedInPage(
  server: TestServer,
  account: TestAccount,
): Promise<{ url: string; my: BrowserPage }> {
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const my = await openBrowserPage();
  await my.page.goto(`${url}/dashboard/sign-in`);
  await my.page.fill('#api_key', account.apiKey);
  await my.page.click('button[type=submit]');
  return { url, my };
}

/** After the file's tests: the browser closed, then the server (either may not have started). */
export function afterAllClose(
  opened: () => { my: BrowserPage | undefined; server: TestServer | undefined },
): void {
  afterAll(async () => {
    const { my, server } = opened();
    await my?.browser.close();
    await server?.close();
  });
}
