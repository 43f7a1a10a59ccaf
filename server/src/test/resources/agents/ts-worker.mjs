// Serves one Paddock self-hosted environment with the official TypeScript SDK's EnvironmentWorker.
// Environment: PADDOCK_BASE_URL, PADDOCK_ENVIRONMENT_ID, PADDOCK_ENVIRONMENT_KEY, WORKDIR.
import Anthropic from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: process.env.PADDOCK_BASE_URL, apiKey: process.env.PADDOCK_ENVIRONMENT_KEY });
const worker = client.beta.environments.work.worker({
  environmentId: process.env.PADDOCK_ENVIRONMENT_ID,
  environmentKey: process.env.PADDOCK_ENVIRONMENT_KEY,
  workdir: process.env.WORKDIR,
  workerId: 'ts-worker-1',
  maxIdleMs: 1000,
});
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
console.log('worker started');
try {
  await worker.run(stop.signal);
} catch (e) {
  if (!stop.signal.aborted) {
    console.error('worker failed: ' + e);
    process.exit(1);
  }
}
