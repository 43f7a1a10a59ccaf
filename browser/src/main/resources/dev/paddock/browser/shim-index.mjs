// "playwright" / "playwright-core" as seen by a task script: the real playwright-core with Paddock's launch defaults.
import * as core from '/usr/local/lib/paddock-browser/node_modules/playwright-core/index.mjs';
import { chromium as launcher } from '/tmp/paddock-browser/launch.mjs';

export const pages = [];
const track = (p) => { pages.push(p); return p; };
function trackBrowser(b) {
  const newPage = b.newPage.bind(b);
  b.newPage = async (...a) => track(await newPage(...a));
  const newContext = b.newContext.bind(b);
  b.newContext = async (...a) => { const c = await newContext(...a); c.on('page', track); return c; };
  return b;
}
export const chromium = Object.assign(Object.create(core.chromium), {
  launch: async (o) => trackBrowser(await launcher.launch(o)),
  launchPersistentContext: async (d, o) => { const c = await launcher.launchPersistentContext(d, o); c.pages().forEach(track); c.on('page', track); return c; },
});
export const { devices, errors, request, selectors } = core;
export default { chromium, devices, errors, request, selectors };
