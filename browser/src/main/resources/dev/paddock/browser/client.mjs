// Sends the request on stdin to the step-mode agent and prints its one-line answer; waits for the agent to listen.
import { connect } from 'node:net';
const SOCKET = '/tmp/paddock-browser/agent.sock';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const deadline = Date.now() + Number(process.argv[2] || 30000);
function attempt() {
  const c = connect(SOCKET);
  let answer = '';
  c.on('connect', () => c.write(input.trim() + '\n'));
  c.on('data', d => { answer += d; });
  c.on('end', () => { process.stdout.write(answer); process.exit(0); });
  c.on('error', e => {
    if (Date.now() < deadline && (e.code === 'ENOENT' || e.code === 'ECONNREFUSED')) setTimeout(attempt, 50);
    else { process.stderr.write('browser agent unreachable: ' + e.code + '\n'); process.exit(3); }
  });
}
attempt();
