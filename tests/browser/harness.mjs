// harness.mjs -- what the browser tests share: the page server (web/serve.mjs
// on a free port, isolated or not) and Debian's chromium through
// playwright-core, each started once and always stopped (useBrowser); a
// phone's context (touch, device pixels); pages at a given viewport;
// axe-core injected into a page; a long-task observer.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
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

/**
 * What a test file shares, started before its tests and always stopped
 * after them: the page server (isolated), with `plain` a second one without
 * isolation, a browser, and with `open(env)` a page. Returns the object
 * that holds them once started ({ server, plain, browser, page }).
 */
export function useBrowser({ plain = false, open = null } = {}) {
  const env = {};
  before(async () => {
    env.server = await startServer();
    if (plain) env.plain = await startServer({ isolated: false });
    env.browser = await startBrowser();
    if (open) env.page = await open(env);
  });
  after(async () => {
    await env.browser?.stop();
    env.server?.stop();
    env.plain?.stop();
  });
  return env;
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

/** A headless chromium whose one context is a phone: a mobile viewport,
 *  touch (a coarse pointer) and `deviceScaleFactor` device pixels per px. */
export async function startPhone({ width = 390, height = 844, deviceScaleFactor = 3 } = {}) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'] });
  const ctx = await browser.newContext({ viewport: { width, height }, isMobile: true, hasTouch: true, deviceScaleFactor });
  return { ctx, async stop() { await browser.close(); } };
}

/** A page (at `viewport`, default the context's) that records console
 *  errors and page errors into page.errors; `init` scripts run before the
 *  page's own. */
export async function openPage(ctx, url, { viewport, init = [] } = {}) {
  const page = await ctx.newPage();
  if (viewport) await page.setViewportSize(viewport);
  for (const fn of init) await page.addInitScript(fn);
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(url);
  await ready(page);
  return page;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now. */
export async function axeViolations(page) {
  if (!await page.evaluate(() => !!window.axe)) await page.addScriptTag({ content: axeSource });
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`).join(' | ')}`);
}

/** An init script: records every long task (PerformanceObserver 'longtask') in window.__longTasks. */
export function watchLongTasks() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: Math.round(e.startTime), ms: Math.round(e.duration) });
  }).observe({ type: 'longtask', buffered: true });
}

/** The long tasks recorded since the last call (and forgets them). */
export function takeLongTasks(page) {
  return page.evaluate(() => window.__longTasks.splice(0));
}

/** Waits until the player has a model for the current flow and case. */
export async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && window.__player, null, { timeout: 60000 });
}

/** Navigates the open page to a hash and waits for the re-run. */
export async function goHash(page, hash) {
  await page.evaluate(async (h) => {
    // The page's own listener was added first, so it has run when ours
    // does (a timer alone may fire before the hashchange task does).
    const before = location.hash;
    const changed = new Promise((r) => window.addEventListener('hashchange', r, { once: true }));
    location.hash = h;
    if (location.hash !== before) await changed;
    await window.__player.busy;                       // the module re-run it started
  }, hash);
}

/** The hex texts of the drawn cells of the first buffer of `kind` (or of a selector). */
export function cells(page, kind, n) {
  const sel = kind.includes(' ') || kind.startsWith('.') ? kind : `.buffer[data-kind=${kind}]`;
  return page.evaluate(([s, count]) => [...document.querySelector(s).querySelectorAll('.cell')]
    .slice(0, count).map((c) => c.querySelector('.v').textContent), [sel, n]);
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
