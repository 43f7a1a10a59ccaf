// Drives a budgeted session through the official TypeScript SDK and prints what it saw as one JSON line.
// Environment: SDK_DIR (where the SDK is installed; the script runs from elsewhere, so it imports the SDK from there),
// PADDOCK_BASE_URL, PADDOCK_API_KEY, AGENT_ID (a priced model), UNPRICED_AGENT_ID, ENVIRONMENT_ID.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const { default: Anthropic } = await import(pathToFileURL(join(process.env.SDK_DIR, 'node_modules/@anthropic-ai/sdk/index.mjs')).href);

const client = new Anthropic({ baseURL: process.env.PADDOCK_BASE_URL, apiKey: process.env.PADDOCK_API_KEY, maxRetries: 0 });
const sessions = client.beta.sessions;
const budget = (amount) => ({ type: 'limit', max_list_cost: { amount, currency: 'USD' } });
const out = { rejections: {} };

async function rejection(name, call) {
  try {
    await call();
    out.rejections[name] = 'accepted';
  } catch (e) {
    out.rejections[name] = { class: e.constructor.name, status: e.status, errorCode: e.errorCode };
  }
}

// Reads a stream until the session has gone idle `idles` times; returns the events seen.
async function follow(stream, idles) {
  const seen = [];
  for await (const event of stream) {
    seen.push(event);
    if (event.type === 'session.status_idle' && --idles === 0) break;
  }
  return seen;
}

const session = await sessions.create({ agent: process.env.AGENT_ID, environment_id: process.env.ENVIRONMENT_ID, budget: budget('150') });
out.createdBudget = session.budget;

const previewing = await sessions.events.stream(session.id, { event_deltas: ['agent.message'] });
const plain = await sessions.events.stream(session.id);
const seenPreviewing = follow(previewing, 2);
const seenPlain = follow(plain, 2);

await sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'go' }] }] });
// wait for the first idle through the listing, then raise the budget and go on
let firstIdle;
for (let i = 0; i < 600 && !firstIdle; i++) {
  const page = await sessions.events.list(session.id, { limit: 100 });
  firstIdle = page.data.find((e) => e.type === 'session.status_idle');
  if (!firstIdle) await new Promise((r) => setTimeout(r, 100));
}
out.firstStop = firstIdle?.stop_reason;
out.usageAtStop = (await sessions.retrieve(session.id)).usage;

await rejection('lowered', () => sessions.update(session.id, { budget: budget('200') }));
const raised = await sessions.update(session.id, { budget: budget('1000') });
out.raisedBudget = raised.budget;
await sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'finish' }] }] });

out.previewing = (await seenPreviewing).map((e) => ({ type: e.type, id: e.id, event: e.event, event_id: e.event_id, delta: e.delta,
  content: e.content, stop_reason: e.stop_reason }));
out.plainTypes = (await seenPlain).map((e) => e.type);

const uncapped = await sessions.create({ agent: process.env.AGENT_ID, environment_id: process.env.ENVIRONMENT_ID });
await rejection('addedLater', () => sessions.update(uncapped.id, { budget: budget('1000') }));
await rejection('unpriced', () => sessions.create({ agent: process.env.UNPRICED_AGENT_ID, environment_id: process.env.ENVIRONMENT_ID,
  budget: budget('1000') }));

console.log(JSON.stringify(out));
process.exit(0);
