// The routes of the agent, network, checkpoint, process, secret, usage and key pages, kept apart from app.js so
// the router there stays a short list. Answers the view's cleanup, or undefined when the hash is none of these.
import { renderSessions } from './sessions.js';
import { renderSession } from './session.js';
import { renderNetwork } from './network.js';
import { renderCheckpoints } from './checkpoints.js';
import { renderProcesses } from './processes.js';
import { renderSecrets } from './secrets.js';
import { renderUsage } from './usage.js';
import { renderKeys } from './keys.js';

const SANDBOX_PAGES = { network: renderNetwork, checkpoints: renderCheckpoints, processes: renderProcesses };
const PAGES = { secrets: renderSecrets, usage: renderUsage, keys: renderKeys };

export function renderPage(main, parts) {
  const [first, second, third] = parts;
  if (first === 'sandboxes' && second && SANDBOX_PAGES[third]) return SANDBOX_PAGES[third](main, decodeURIComponent(second));
  if (first === 'sessions' && second) return renderSession(main, decodeURIComponent(second));
  if (first === 'sessions') return renderSessions(main);
  if (PAGES[first] && !second) return PAGES[first](main);
  return undefined;
}
