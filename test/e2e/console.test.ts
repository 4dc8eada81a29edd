import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startConsole, type LocalConsole } from '../../emulators/pullsecret/console/server';
import { canaryPullSecret, leaks, type Canary } from '../helpers/canary';
import { ROOT } from '../helpers/run-process';
import { startTestStack, type TestStack } from '../helpers/stack';

// Debian's chromium (CI installs it: .ci/run); playwright-core brings no browser of its own.
const CHROMIUM = '/usr/bin/chromium';
// README's screenshot is refreshed on request (UPDATE_SCREENSHOTS=1 npx jest test/e2e/console.test.ts);
// otherwise it goes to the test work folder, so running the suite leaves the tree unchanged.
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS
  ? path.join(ROOT, 'docs/console.png')
  : path.join(ROOT, '.test-work/console.png');

/** Every form of a pull secret the API holds for a cluster (the console must show none of them). */
function secretForms(pullSecret: string): Canary {
  const auths = (JSON.parse(pullSecret) as { auths: Record<string, { auth: string }> }).auths;
  const pairs = Object.values(auths).map((a) => Buffer.from(a.auth, 'base64').toString());
  return {
    text: pullSecret,
    forms: [
      pullSecret,
      Buffer.from(pullSecret).toString('base64'),
      ...Object.values(auths).map((a) => a.auth),
      ...pairs,
      ...pairs.map((p) => p.slice(p.indexOf(':') + 1)),
    ],
  };
}

let stack: TestStack;
let localConsole: LocalConsole;
let browser: BrowserContext;
let page: Page;
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-chromium-'));

beforeAll(async () => {
  stack = await startTestStack();
  localConsole = await startConsole(stack.d);
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await localConsole?.close();
  await stack?.stop();
  fs.rmSync(userDataDir, { recursive: true, force: true });
});

const card = (name: string) => page.locator(`[data-testid=cluster][data-cluster-name="${name}"]`);
const condition = (name: string, type: string, status: string, generation: number) =>
  card(name).locator(
    `[data-testid=condition][data-type=${type}][data-status=${status}][data-generation="${generation}"]`,
  );

describe('the local console in a browser', () => {
  it('creates a cluster, watches it converge, changes its pull secret, holds an adapter, injects a fault, deletes; shows no secret', async () => {
    // A cluster created with the API, whose canary must not reach the page either.
    const canary = canaryPullSecret('console');
    const canaryId = await stack.createCluster('canary-cluster', canary.text);
    await stack.converged(canaryId);

    await page.goto(localConsole.endpoint);
    await page.getByTestId('create-cluster').click();
    const created = page.locator('[data-testid=cluster][data-cluster-name^="demo-"]');
    await created.waitFor({ timeout: 15_000 });
    const name = (await created.getAttribute('data-cluster-name'))!;
    const id = (await created.getAttribute('data-cluster-id'))!;
    await condition(name, 'PullsecretSuccessful', 'True', 1).waitFor({ timeout: 60_000 });
    await card(name)
      .getByText(/^v1 ENABLED$/)
      .waitFor();
    // The Secret, per management cluster: names, type and labels only.
    await page
      .locator('[data-testid=management-cluster]')
      .getByText(`${id}-pull-secret`)
      .first()
      .waitFor();
    await page.getByTestId('executions').getByText('succeeded').first().waitFor();

    // The fleet panel: `fleet report`'s summary of the same clusters, and the launch queue's state.
    const fleet = page.getByTestId('fleet');
    await fleet
      .locator('[data-testid=fleet-state][data-state=converged]:not([data-count="0"])')
      .waitFor({ timeout: 15_000 });
    const total = Number(await fleet.getByTestId('fleet-total').getAttribute('data-count'));
    expect(total).toBeGreaterThanOrEqual(2);
    await fleet.locator('[data-testid=launch-queue][data-state=RUNNING]').waitFor();
    expect(await fleet.getByTestId('fleet-permanent').getAttribute('data-count')).toBe('0');
    expect(await fleet.getByTestId('fleet-not-converged').getAttribute('data-count')).toBe('0');
    const states = await fleet
      .getByTestId('fleet-state')
      .evaluateAll((nodes) => nodes.map((n) => Number(n.getAttribute('data-count'))));
    expect(states.reduce((a, b) => a + b, 0)).toBe(total);

    // The trace of its latest reconcile: Sentinel's publish and the adapter handling it, drawn
    // from the stack's trace store; the section stays open (and in the secret scan below).
    await card(name).getByTestId('trace').locator('summary').click();
    const traceSpan = (span: string) =>
      card(name).locator(`[data-testid=trace-span][data-name="${span}"]`).first();
    await traceSpan('sentinel.publish').waitFor({ timeout: 15_000 });
    await traceSpan('adapter.handle').waitFor({ timeout: 15_000 });
    expect(await card(name).getByTestId('trace-id').innerText()).toMatch(/^[0-9a-f]{32}$/);

    await card(name).getByTestId('change-pull-secret').click();
    await condition(name, 'PullsecretSuccessful', 'True', 2).waitFor({ timeout: 60_000 });
    await card(name)
      .getByText(/^v2 ENABLED$/)
      .waitFor();

    await card(name).getByTestId('hold-dns').click();
    await card(name).getByText('Available=False').first().waitFor();
    await card(name).getByTestId('release-dns').click();
    await card(name).getByText('Available=False').waitFor({ state: 'detached' });

    await page.getByTestId('fault-secret-manager-unavailable').click();
    await page.getByTestId('faults').getByText('AddSecretVersion').waitFor();
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.getByText('Clear faults').click();
    await page.getByTestId('faults').getByText('AddSecretVersion').waitFor({ state: 'detached' });

    // No secret material anywhere in the page or the JSON it reads.
    const demo = await stack.api.getCluster(id);
    const demoSecret = (demo.spec as { pullSecret: { data: string } }).pullSecret.data;
    const state = await (await fetch(`${localConsole.endpoint}api/state`)).text();
    const trace = await (await fetch(`${localConsole.endpoint}api/clusters/${id}/trace`)).text();
    expect(await card(name).getByTestId('trace-span').count()).toBeGreaterThan(0);
    const shown = [await page.content(), await page.innerText('body'), state, trace].join('\n');
    expect(leaks(shown, [canary, secretForms(demoSecret)])).toEqual([]);
    expect(shown).not.toContain('"auths"');

    await card(name).getByTestId('delete-cluster').click();
    await card(name).waitFor({ state: 'detached', timeout: 60_000 });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
  }, 240_000);
});
