/**
 * Headless Chromium for the console's tests and screenshots: Debian's `chromium` (the executable,
 * not a browser build fetched by the driver), driven by puppeteer-core. Missing under CI=true is a
 * failure, never a skip: CI installs it (.ci/run).
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser's path: CHROMIUM_PATH, else Debian's places; undefined when none is installed. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return fromEnv;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Why the browser tests cannot run here, or undefined when they can; throws under CI, which must run them. */
export function chromiumMissing(): string | undefined {
  if (findChromium() !== undefined) return undefined;
  const reason = 'chromium is not installed (apt-get install chromium, or set CHROMIUM_PATH)';
  if (process.env.CI === 'true') throw new Error(`${reason}: CI must run the console's browser test`);
  return reason;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === undefined) throw new Error('chromium is not installed (apt-get install chromium, or set CHROMIUM_PATH)');
  return puppeteer.launch({
    executablePath,
    headless: true,
    // Root (CI, these machines) cannot use Chromium's sandbox; the pages are our own console on loopback.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}
