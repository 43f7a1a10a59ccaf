// Uploads a skill, a second version, and pins it on an agent with the official TypeScript SDK; prints what came back.
// Environment: PADDOCK_BASE_URL, PADDOCK_API_KEY.
import Anthropic, { toFile } from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: process.env.PADDOCK_BASE_URL, apiKey: process.env.PADDOCK_API_KEY, maxRetries: 0 });
const skillMd = (marker) => `---\nname: csv-report\ndescription: Summarise a CSV file. Use when the user hands you a CSV.\n---\n# Steps\n${marker}\n`;
const files = async (marker) => [
  await toFile(Buffer.from(skillMd(marker)), 'csv-report/SKILL.md'),
  await toFile(Buffer.from('print("report")\n'), 'csv-report/scripts/report.py'),
];

const skill = await client.beta.skills.create({ files: await files('MARKER-A'), display_name: 'CSV report' });
const second = await client.beta.skills.versions.create(skill.id, { files: await files('MARKER-B') });
const versions = [];
for await (const v of client.beta.skills.versions.list(skill.id)) versions.push(v.id);
const listed = [];
for await (const s of client.beta.skills.list()) listed.push(s.id);
const latest = await client.beta.skills.versions.retrieve('latest', { skill_id: skill.id });
const agent = await client.beta.agents.create({
  name: 'reporter',
  model: 'claude-sonnet-4-5',
  tools: [{ type: 'agent_toolset_20260401' }],
  skills: [{ type: 'custom', skill_id: skill.id, version: 'latest' }],
});
let anthropic = null;
try {
  await client.beta.agents.create({ name: 'x', model: 'claude-sonnet-4-5', skills: [{ type: 'anthropic', skill_id: 'xlsx' }] });
} catch (e) {
  anthropic = { status: e.status, code: e.error?.error?.code };
}
console.log(JSON.stringify({ skill, second, versions, listed, latest, agent, anthropic }));
