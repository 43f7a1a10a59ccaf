// Launch options for Chromium inside a Paddock sandbox. Chromium's own sandbox needs nested user namespaces.
// Drivers with a kernel boundary that allows them (gVisor, Docker with runsc) set PADDOCK_BROWSER_CHROMIUM_SANDBOX=1
// and Chromium keeps its sandbox inside that boundary. bubblewrap disables nested user namespaces: there the bwrap
// sandbox around this process is the only boundary, hence --no-sandbox (see docs/SECURITY.md).
// All traffic goes through the sandbox's egress forwarder; loopback too, so nothing bypasses the proxy.
import { mkdirSync } from 'node:fs';
import { chromium as core } from '/usr/local/lib/paddock-browser/node_modules/playwright-core/index.mjs';

export const PROFILE_DIR = '/tmp/paddock-browser/profile';
// Chromium's home: config, caches, the NSS database and fontconfig's cache go here, in the sandbox's private
// tmpfs, instead of the sandbox's HOME (/workspace), where they would land on the host's disk and in script
// mode's list of files.
export const HOME = '/tmp/paddock-browser/home';

// Chromium's own background traffic (field trials, component and safe-browsing updates, autofill and
// optimization-hint queries, metrics, crash reports, translation, media router) would fill the sandbox's egress
// audit log with requests the agent never made; with these it holds only what the pages asked for.
// Playwright passes its own --disable-features list and Chromium keeps only the last one given, so this list
// carries Playwright's (1.62) entries as well.
const DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'BoundaryEventDispatchTracksNodeRemoval', 'DestroyProfileOnBrowserClose',
  'DialMediaRouteProvider', 'GlobalMediaControls', 'HttpsUpgrades', 'LensOverlay', 'MediaRouter', 'PaintHolding',
  'ThirdPartyStoragePartitioning', 'BlockOriginHeaderModificationOnRedirect', 'Translate', 'AutoDeElevate',
  'OptimizationHints',
  // ours
  'AutofillServerCommunication', 'OptimizationGuideModelDownloading', 'OptimizationHintsFetching',
  'OptimizationTargetPrediction', 'CertificateTransparencyComponentUpdater', 'NetworkTimeServiceQuerying',
];

const NOWHERE = 'http://127.0.0.1:9/';

export function launchArgs(env = process.env) {
  // the zygote is what forks sandboxed renderers: it goes only where the sandbox does
  const sandbox = env.PADDOCK_BROWSER_CHROMIUM_SANDBOX === '1' ? [] : ['--no-sandbox', '--no-zygote'];
  const args = [...sandbox, '--disable-gpu', '--disable-dev-shm-usage',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
    '--disable-default-apps', '--disable-breakpad', '--disable-crash-reporter', '--disable-domain-reliability',
    '--disable-client-side-phishing-detection', '--metrics-recording-only', '--no-pings', '--no-default-browser-check',
    '--disable-features=' + DISABLED_FEATURES.join(','), '--allow-browser-signin=false',
    // Debian's Chromium still asks update.googleapis.com for components and accounts.google.com for sign-in state
    // with all of the above: point those services at the discard port, which Chromium refuses to connect to
    // before any request leaves (no proxy request, no audit record)
    '--component-updater=url-source=' + NOWHERE, '--gaia-url=' + NOWHERE, '--google-apis-url=' + NOWHERE, '--lso-url=' + NOWHERE,
    '--variations-server-url=' + NOWHERE];
  if (process.env.HTTP_PROXY) args.push('--proxy-server=' + process.env.HTTP_PROXY, '--proxy-bypass-list=<-loopback>');
  else args.push('--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>');
  return args;
}

/** The browser's environment: the caller's, with its home (and XDG directories) in the sandbox's tmpfs. */
export function browserEnv(env = process.env) {
  mkdirSync(HOME, { recursive: true, mode: 0o700 });
  return { ...env, HOME, XDG_CONFIG_HOME: HOME + '/.config', XDG_CACHE_HOME: HOME + '/.cache', XDG_DATA_HOME: HOME + '/.local/share' };
}

export function withDefaults(options = {}) {
  // Playwright adds --no-sandbox itself unless told that Chromium keeps its sandbox
  return { ...options, executablePath: '/usr/lib/chromium/chromium', headless: true, env: browserEnv(options.env || process.env),
    chromiumSandbox: process.env.PADDOCK_BROWSER_CHROMIUM_SANDBOX === '1',
    args: [...launchArgs(), ...(options.args || [])].filter(a => a !== '--sandbox') };
}

export const chromium = {
  launch: (options) => core.launch(withDefaults(options)),
  launchPersistentContext: (dir, options) => core.launchPersistentContext(dir, withDefaults(options)),
};
