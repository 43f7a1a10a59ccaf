// Files and session resources through the official TypeScript SDK, as a client would use them.
// Environment: PADDOCK_BASE_URL, PADDOCK_API_KEY, REPOSITORY_URL. Prints one JSON object of what it saw.
import Anthropic, { toFile } from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: process.env.PADDOCK_BASE_URL, apiKey: process.env.PADDOCK_API_KEY, maxRetries: 0 });
const out = {};

const uploaded = await client.beta.files.upload({ file: await toFile(Buffer.from('hello from the sdk\n'), 'sdk notes.txt', { type: 'text/plain' }) });
out.uploaded = uploaded;
out.metadata = await client.beta.files.retrieveMetadata(uploaded.id);
const second = await client.beta.files.upload({ file: await toFile(Buffer.from('second'), 'dir/second.txt') });
out.listed = [];
for await (const f of client.beta.files.list({ limit: 1 })) out.listed.push(f.id);
out.downloaded = await (await client.beta.files.download(uploaded.id)).text();

const agent = await client.beta.agents.create({ name: 'sdk-files', model: 'claude-sonnet-4-5', tools: [{ type: 'agent_toolset_20260401' }] });
const environment = await client.beta.environments.create({ name: 'sdk-files-env-' + Date.now() });
const session = await client.beta.sessions.create({
  agent: agent.id,
  environment_id: environment.id,
  resources: [
    { type: 'file', file_id: uploaded.id },
    { type: 'github_repository', url: process.env.REPOSITORY_URL, authorization_token: 'ghp_sdk_secret_token', checkout: { type: 'branch', name: 'main' } },
  ],
});
out.session_resources = session.resources;
out.resources = [];
for await (const r of client.beta.sessions.resources.list(session.id)) out.resources.push(r);
const repo = out.resources.find((r) => r.type === 'github_repository');
out.retrieved = await client.beta.sessions.resources.retrieve(repo.id, { session_id: session.id });
out.updated = await client.beta.sessions.resources.update(repo.id, { session_id: session.id, authorization_token: 'ghp_sdk_rotated_token' });
out.added = await client.beta.sessions.resources.add(session.id, { type: 'file', file_id: second.id, mount_path: '/workspace/second.txt' });
out.deleted_resource = await client.beta.sessions.resources.delete(out.added.id, { session_id: session.id });
out.deleted_file = await client.beta.files.delete(second.id);
try {
  await client.beta.files.retrieveMetadata(second.id);
  out.after_delete = 'found';
} catch (e) {
  out.after_delete = e.status;
}
try {
  await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id, resources: [{ type: 'memory_store', memory_store_id: 'memstore_1' }] });
  out.memory_store = 'accepted';
} catch (e) {
  out.memory_store = { status: e.status, code: e.error?.error?.details?.error_code ?? null };
}
console.log(JSON.stringify(out));
