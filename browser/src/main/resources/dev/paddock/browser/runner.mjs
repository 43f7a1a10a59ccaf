// Runs a task script; on failure prints the error and screenshots the last open page for the caller.
const FAILURE_SHOT = process.argv[3];
try {
  await import(process.argv[2]);
} catch (e) {
  process.stderr.write('\n' + (e && e.stack ? e.stack : String(e)) + '\n');
  try {
    const { pages } = await import('/tmp/paddock-browser/node_modules/playwright-core/index.mjs');
    const open = pages.filter(p => !p.isClosed());
    if (open.length) await open[open.length - 1].screenshot({ path: FAILURE_SHOT, timeout: 5000 });
  } catch (_) { /* no screenshot possible */ }
  process.exit(1);
}
process.exit(process.exitCode ?? 0);
