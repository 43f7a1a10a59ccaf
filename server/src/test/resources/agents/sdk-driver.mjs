// Drives Paddock sessions with the official TypeScript SDK, one per scenario of the plan, and writes what it saw.
// Argument: the plan file (JSON, written by SdkConformanceTest); the result goes to plan.output.
// The plan: {baseUrl, apiKey, worker?: {environmentId, environmentKey, workdir}, scenarios: [{name, agent,
// environment, prompt, interruptOn?, interruptGate?, customToolResult?, confirmation?, denyMessage?}]}: the
// interrupt goes out on the first event of type interruptOn, once the file interruptGate (if any) exists.
// With `worker`, the SDK's EnvironmentWorker serves the self-hosted environment in this same process.
import Anthropic from '@anthropic-ai/sdk';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const client = new Anthropic({ baseURL: plan.baseUrl, apiKey: plan.apiKey, maxRetries: 0 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function untilExists(file) {
  for (let waited = 0; file && !existsSync(file); waited += 100) {
    if (waited > 60000) throw new Error('no ' + file + ' after 60 s');
    await sleep(100);
  }
}

let stopWorker = () => {};
let workerDone = Promise.resolve();
if (plan.worker) {
  const workerClient = new Anthropic({ baseURL: plan.baseUrl, apiKey: plan.worker.environmentKey });
  const worker = workerClient.beta.environments.work.worker({
    environmentId: plan.worker.environmentId,
    environmentKey: plan.worker.environmentKey,
    workdir: plan.worker.workdir,
    workerId: 'sdk-conformance',
    maxIdleMs: 1000,
  });
  const stop = new AbortController();
  stopWorker = () => stop.abort();
  workerDone = worker.run(stop.signal).catch((e) => {
    if (!stop.signal.aborted) console.error('worker failed: ' + e);
  });
}

async function runScenario(s) {
  const session = await client.beta.sessions.create({ agent: s.agent, environment_id: s.environment });
  const events = [];
  const sent = [];
  const stream = await client.beta.sessions.events.stream(session.id);
  const accepted = await client.beta.sessions.events.send(session.id, {
    events: [{ type: 'user.message', content: [{ type: 'text', text: s.prompt }] }],
  });
  let interruptedAt = null;
  let idleAfterInterruptMs = null;
  for await (const ev of stream) {
    events.push(ev);
    if (s.interruptOn === ev.type && interruptedAt === null) {
      await untilExists(s.interruptGate);
      interruptedAt = Date.now();
      await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.interrupt' }] });
      sent.push('user.interrupt');
    }
    if (ev.type === 'session.status_terminated') break;
    if (ev.type !== 'session.status_idle') continue;
    if (interruptedAt !== null && idleAfterInterruptMs === null) idleAfterInterruptMs = Date.now() - interruptedAt;
    if (ev.stop_reason.type !== 'requires_action') break;
    const answers = ev.stop_reason.event_ids.map((id) => {
      const asked = events.find((e) => e.id === id);
      if (asked?.type === 'agent.custom_tool_use') {
        return { type: 'user.custom_tool_result', custom_tool_use_id: id, content: [{ type: 'text', text: s.customToolResult }] };
      }
      return s.confirmation === 'deny'
        ? { type: 'user.tool_confirmation', tool_use_id: id, result: 'deny', deny_message: s.denyMessage }
        : { type: 'user.tool_confirmation', tool_use_id: id, result: 'allow' };
    });
    await client.beta.sessions.events.send(session.id, { events: answers });
    sent.push(...answers.map((a) => a.type));
  }
  stream.controller.abort();
  const retrieved = await client.beta.sessions.retrieve(session.id);
  // the whole log again, through the SDK's auto-pagination in small pages
  const listed = [];
  for await (const ev of client.beta.sessions.events.list(session.id, { limit: 4 })) listed.push(ev);
  return { scenario: s.name, session_id: session.id, status: retrieved.status, events, sent, idle_after_interrupt_ms: idleAfterInterruptMs,
    session: retrieved, accepted, listed };
}

/** The SDK's error class for a request Paddock refuses. */
async function errorOf(request) {
  try {
    await request();
    return 'none';
  } catch (e) {
    return e.constructor.name;
  }
}

const results = [];
try {
  for (const s of plan.scenarios) results.push(await runScenario(s));
  const errors = {
    stale_session: await errorOf(() => client.beta.sessions.retrieve('sesn_011CZkZAtmR3yMPDzynEDxu7')),
    stale_session_events: await errorOf(() => client.beta.sessions.events.send('sesn_011CZkZAtmR3yMPDzynEDxu7',
      { events: [{ type: 'user.interrupt' }] })),
    stale_agent: await errorOf(() => client.beta.agents.retrieve('agent_011CZkZAtmR3yMPDzynEDxu7')),
    terminated_session: await errorOf(() => client.beta.sessions.events.send(results.find((r) => r.status === 'terminated').session_id,
      { events: [{ type: 'user.message', content: [{ type: 'text', text: 'still there?' }] }] })),
  };
  writeFileSync(plan.output, JSON.stringify({ results, errors }));
} finally {
  stopWorker();
  await workerDone;
}
