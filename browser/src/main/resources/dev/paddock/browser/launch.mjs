// Launch options for Chromium inside a Paddock sandbox. Chromium's own sandbox needs nested user namespaces,
// which bubblewrap disables: the bwrap sandbox around this process is the boundary, hence --no-sandbox.
// All traffic goes through the sandbox's egress forwarder; loopback too, so nothing bypasses the proxy.
import { chromium as core } from '/usr/local/lib/paddock-browser/node_modules/playwright-core/index.mjs';

export const PROFILE_DIR = '/tmp/paddock-browser/profile';

export function launchArgs() {
  const args = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-breakpad', '--no-zygote'];
  if (process.env.HTTP_PROXY) args.push('--proxy-server=' + process.env.HTTP_PROXY, '--proxy-bypass-list=<-loopback>');
  else args.push('--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>');
  return args;
}

export function withDefaults(options = {}) {
  return { ...options, executablePath: '/usr/lib/chromium/chromium', headless: true,
    args: [...launchArgs(), ...(options.args || [])].filter(a => a !== '--sandbox') };
}

export const chromium = {
  launch: (options) => core.launch(withDefaults(options)),
  launchPersistentContext: (dir, options) => core.launchPersistentContext(dir, withDefaults(options)),
};
