// harness.mjs -- what the browser tests share: the page server (web/serve.mjs
// on a free port, isolated or not) and Debian's chromium through
// playwright-core, each started once and always stopped.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const shots = join(root, 'test-results');
mkdirSync(shots, { recursive: true });

/** Starts web/serve.mjs on a free port; resolves { url, stop }. */
export function startServer({ isolated = true } = {}) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, PORT: '0', ISOLATION: isolated ? 'on' : 'off' };
    const child = spawn(process.execPath, [join(root, 'web/serve.mjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => { child.kill(); reject(new Error('the server did not start')); }, 10000);
    child.stdout.on('data', (d) => {
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(String(d));
      if (m) { clearTimeout(timer); resolve({ url: m[0], stop: () => child.kill() }); }
    });
    child.on('error', reject);
  });
}

/** A fresh headless chromium (a new profile each run). */
export async function startBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'sp-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { ctx, async stop() { await ctx.close(); rmSync(profile, { recursive: true, force: true }); } };
}

/** A page that records console errors and page errors into page.errors. */
export async function openPage(ctx, url) {
  const page = await ctx.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(url);
  await ready(page);
  return page;
}

/** Waits until the player has a model for the current flow and case. */
export async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && window.__player, null, { timeout: 60000 });
}

/** Navigates the open page to a hash and waits for the re-run. */
export async function goHash(page, hash) {
  await page.evaluate(async (h) => {
    location.hash = h;
    await new Promise((r) => setTimeout(r, 0));      // the hashchange handler has run
    await window.__player.busy;                       // and the module re-run it started
  }, hash);
}

/** The hex texts of the drawn cells of the first buffer of `kind`. */
export function cells(page, kind, n) {
  return page.evaluate(([k, count]) => [...document.querySelectorAll(`.buffer[data-kind=${k}] .cell`)]
    .slice(0, count).map((c) => c.textContent), [kind, n]);
}

/** Plays the current case from the start to its end through the clock's flush hook. */
export async function playToEnd(page) {
  await page.click('#play');
  return page.evaluate(() => {
    const p = window.__player;
    for (let i = 0; i < 500 && p.playing; i++) p.flush();
    return { cursor: p.model.cursor, steps: p.model.steps.length, playing: p.playing };
  });
}
