// Vaults, credentials and a session that uses them, through the official TypeScript SDK against Paddock.
// Environment: PADDOCK_BASE_URL, PADDOCK_API_KEY, MCP_URL, MCP_TOKEN. Prints one JSON line with what it saw.
import Anthropic from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: process.env.PADDOCK_BASE_URL, apiKey: process.env.PADDOCK_API_KEY, maxRetries: 0 });
const url = process.env.MCP_URL;

const vault = await client.beta.vaults.create({ display_name: 'ts vault', metadata: { team: 'docs' } });
const credential = await client.beta.vaults.credentials.create(vault.id, {
  display_name: 'glossary',
  auth: { type: 'static_bearer', token: process.env.MCP_TOKEN, mcp_server_url: url },
});
const renamed = await client.beta.vaults.update(vault.id, { display_name: 'renamed vault', metadata: { team: null, owner: 'ts' } });
const retrieved = await client.beta.vaults.credentials.retrieve(credential.id, { vault_id: vault.id });
const validation = await client.beta.vaults.credentials.mcpOAuthValidate(credential.id, { vault_id: vault.id });
const vaultIds = [];
for await (const v of client.beta.vaults.list({ limit: 1 })) vaultIds.push(v.id);
const credentialIds = [];
for await (const c of client.beta.vaults.credentials.list(vault.id)) credentialIds.push(c.id);

const agent = await client.beta.agents.create({
  name: 'ts researcher',
  model: 'claude-sonnet-4-5',
  mcp_servers: [{ type: 'url', name: 'glossary', url }],
  tools: [{ type: 'mcp_toolset', mcp_server_name: 'glossary' }],
});
const environment = await client.beta.environments.create({ name: 'ts-env-' + Date.now() });
const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environment.id, vault_ids: [vault.id] });
await client.beta.sessions.events.send(session.id, {
  events: [{ type: 'user.message', content: [{ type: 'text', text: 'what is paddock?' }] }],
});
let events = [];
for (let i = 0; i < 600; i++) {
  events = [];
  for await (const e of client.beta.sessions.events.list(session.id)) events.push(e);
  if (events.length && events[events.length - 1].type === 'session.status_idle') break;
  await new Promise((r) => setTimeout(r, 100));
}
const read = await client.beta.sessions.retrieve(session.id);

const archivedCredential = await client.beta.vaults.credentials.archive(credential.id, { vault_id: vault.id });
const archivedVault = await client.beta.vaults.archive(vault.id);
const deleted = await client.beta.vaults.delete(vault.id);
let afterDelete;
try {
  await client.beta.vaults.retrieve(vault.id);
  afterDelete = 'found';
} catch (e) {
  afterDelete = e instanceof Anthropic.NotFoundError ? 'not_found' : String(e);
}

console.log(JSON.stringify({
  vault, credential, renamed, retrieved, validation, vaultIds, credentialIds,
  sessionVaultIds: read.vault_ids,
  events,
  archivedCredential, archivedVault, deleted, afterDelete,
}));
