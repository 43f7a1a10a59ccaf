// The v86 engine: a 32-bit Linux in the tab, driven over its serial console. Commands go as one short line
// ("sh <script>"); their script, stdin, stdout and stderr travel through v86's 9p filesystem (mounted in the guest
// at /mnt/9p, whose workspace/ is bound at /workspace), never through the serial line, which hangs on large input.

const READY = '@@PADDOCK-READY@@';
const WARM_UP_ROUNDS = 30;
const WARM_UP_IDLE_MS = 300;
const NO_FORK = new Set(['true', 'false', ':']);
const SHELL_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
const S_IFMT = 0o170000, S_IFDIR = 0o040000, S_IFREG = 0o100000, S_IFLNK = 0o120000;

function quote(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

function nonce() {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export function createV86Engine({ V86, wasmPath, load, vm, state, onSerial }) {
  let emulator = null;
  let tail = '';
  const waiters = new Set();
  let queue = Promise.resolve();
  const running = new Map();
  let pending = 0;
  let lastOpAt = 0;

  function onByte(b) {
    tail = (tail + String.fromCharCode(b)).slice(-512);
    if (onSerial) onSerial(b);
    for (const w of waiters) if (w.test(tail)) { waiters.delete(w); w.resolve(tail); }
  }

  function waitFor(pattern, ms) {
    return new Promise((resolve, reject) => {
      const w = { test: (t) => pattern.test(t), resolve: (t) => { clearTimeout(timer); resolve(t); } };
      const timer = ms ? setTimeout(() => { waiters.delete(w); reject(new Error(`the VM did not answer within ${ms} ms`)); }, ms) : null;
      waiters.add(w);
      w.test(tail) && (waiters.delete(w), w.resolve(tail));
    });
  }

  // One serial shell: commands run one after the other.
  function serialized(fn) {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  }

  const fs = () => emulator.fs9p;
  const p9 = (guestPath) => guestPath.replace(/^\/workspace/, '/workspace'); // guest /workspace = 9p /workspace

  function lookup(path9) {
    const r = fs().SearchPath(path9);
    return r.id === -1 ? null : r;
  }

  function entryOf(guestPath, id) {
    const ino = fs().GetInode(id);
    const fmt = ino.mode & S_IFMT;
    const type = fmt === S_IFDIR ? 'directory' : fmt === S_IFREG ? 'file' : fmt === S_IFLNK ? 'symlink' : 'other';
    return { path: guestPath, name: guestPath.split('/').pop(), type, size: type === 'directory' ? 0 : ino.size,
      mode: ino.mode & 0o7777, mtime: ino.mtime || 0, link_target: type === 'symlink' ? ino.symlink : null };
  }

  function ensureDirs(path9) {
    const parts = path9.split('/').filter(Boolean);
    let id = 0;
    for (const name of parts) {
      let next = fs().Search(id, name);
      if (next === -1) next = fs().CreateDirectory(name, id);
      else if (!fs().IsDirectory(next)) throw Object.assign(new Error(`${name} is not a directory`), { code: 'not_a_directory' });
      id = next;
    }
    return id;
  }

  // a command id for each exec; its pid marker and end marker carry it, so a stale marker never matches
  const newJob = () => ({ id: nonce(), pid: 0, killed: false });

  async function runCommand({ argv, env, cwd, stdin, job }) {
    try {
      if (job.killed) return { exitCode: 137, stdout: new Uint8Array(0), stderr: new Uint8Array(0) }; // killed while queued
      if (isShellBuiltin(argv, env, cwd, stdin)) return await runBuiltin(argv[0]);
      return await runJob({ argv, env, cwd, stdin, job });
    } finally {
      running.delete(job.id);
    }
  }

  async function runJob({ argv, env, cwd, stdin, job }) {
    const id = job.id;
    const dir = '/.paddock';
    const base = `/mnt/9p/.paddock/${id}`;
    const exports = [`PATH=${SHELL_PATH}`, 'HOME=/root', ...Object.entries(env || {}).map(([k, v]) => `${k}=${v}`)].map(quote).join(' ');
    const input = stdin && stdin.length > 0 ? `${base}.in` : '/dev/null';
    if (stdin && stdin.length > 0) await emulator.create_file(`${dir}/${id}.in`, stdin);
    let line = `(cd ${quote(cwd)} && export ${exports} && exec ${argv.map(quote).join(' ')}) <${input} >${base}.out 2>${base}.err & echo "@@PID ${id} $!@@"; wait $!; echo "@@END ${id} $?@@"`;
    if (line.length > 2000 || /[\n\r]/.test(line)) {
      // long or multi-line commands go through a script file, never as a long serial line
      await emulator.create_file(`${dir}/${id}.sh`, new TextEncoder().encode(line + '\n'));
      line = `. ${base}.sh`;
    }
    const pidMarker = new RegExp(`@@PID ${id} (\\d+)@@`);
    waitFor(pidMarker).then((t) => {
      job.pid = Number(pidMarker.exec(t)[1]);
      if (job.killed && running.has(id)) killGroup(job.pid);
    });
    const marker = new RegExp(`@@END ${id} (\\d+)@@`);
    const done = waitFor(marker);
    emulator.serial0_send(line + '\n');
    const exitCode = Number(marker.exec(await done)[1]);
    running.delete(id); // ended: a late kill must not reach a pid the guest may reuse
    const stdout = await emulator.read_file(`${dir}/${id}.out`).catch(() => new Uint8Array(0));
    const stderr = await emulator.read_file(`${dir}/${id}.err`).catch(() => new Uint8Array(0));
    const parent = lookup(dir);
    for (const suffix of ['sh', 'in', 'out', 'err']) {
      if (parent && fs().Search(parent.id, `${id}.${suffix}`) !== -1) fs().Unlink(parent.id, `${id}.${suffix}`);
    }
    return { exitCode, stdout, stderr };
  }

  // `true`, `false` and `:` behave the same as the shell's builtins and as programs (no output, no input, their
  // exit code only), so the shell runs them in place: no fork, no exec, no redirections. Anything that could
  // tell the difference (a custom PATH, stdin, a cwd that is not a directory) takes the normal path.
  function isShellBuiltin(argv, env, cwd, stdin) {
    if (argv.length !== 1 || !NO_FORK.has(argv[0]) || (stdin && stdin.length > 0) || Object.keys(env || {}).length > 0) return false;
    const dir = lookup(p9(cwd));
    return cwd.startsWith('/workspace') && dir !== null && fs().IsDirectory(dir.id);
  }

  async function runBuiltin(name) {
    const id = nonce();
    const marker = new RegExp(`@@END ${id} (\\d+)@@`);
    const done = waitFor(marker);
    emulator.serial0_send(`${name}; echo "@@END ${id} $?@@"\n`);
    return { exitCode: Number(marker.exec(await done)[1]), stdout: new Uint8Array(0), stderr: new Uint8Array(0) };
  }

  function killGroup(pid) {
    if (Number.isInteger(pid) && pid > 1) emulator.serial_send_bytes(1, new TextEncoder().encode(`kill -9 -${pid} 2>/dev/null\n`));
  }

  // A restored VM starts with a cold JIT: the first few dozen commands run 5-10x slower than later ones. Warm
  // the fork/exec path with /bin/true, one run at a time and only once the tab has been idle for a moment, so a
  // burst of real ops never queues behind it (an op waits for at most one warm-up run).
  async function warmUp(rounds) {
    for (let i = 0; i < rounds && emulator; i++) {
      while (pending > 0 || performance.now() - lastOpAt < WARM_UP_IDLE_MS) {
        await queue;
        await new Promise((r) => setTimeout(r, WARM_UP_IDLE_MS));
      }
      await serialized(() => runCommand({ argv: ['/bin/true'], env: {}, cwd: '/workspace', job: newJob() })).catch(() => {});
    }
  }

  const engine = {
    name: 'v86',

    async boot({ onStatus } = {}) {
      const started = performance.now();
      const buffer = async (name) => ({ buffer: await load(name) });
      const options = {
        wasm_path: wasmPath,
        memory_size: vm.memory_size,
        vga_memory_size: vm.vga_memory_size,
        uart1: vm.uart1,
        bios: await buffer('bios.bin'),
        vga_bios: await buffer('vgabios.bin'),
        filesystem: {},
        autostart: true,
        disable_keyboard: true,
        disable_mouse: true,
        disable_speaker: true,
      };
      let mode = 'cold';
      if (state) {
        options.initial_state = { buffer: state };
        mode = 'state';
      } else {
        options.bzimage = await buffer('bzImage');
        options.initrd = await buffer('initrd.img');
        options.cmdline = vm.cmdline;
      }
      onStatus && onStatus(mode === 'state' ? 'restoring saved VM state' : 'booting Linux (cold boot)');
      emulator = new V86(options);
      emulator.add_listener('serial0-output-byte', onByte);
      if (mode === 'cold') await waitFor(new RegExp(READY), 180000);
      else await new Promise((resolve) => emulator.add_listener('emulator-ready', resolve));
      // a restored guest still has the clock of the snapshot
      const now = Math.floor(Date.now() / 1000);
      const probe = await engine.exec({ argv: ['date', '-s', `@${now}`], env: {}, cwd: '/workspace' });
      if (probe.exitCode !== 0) throw new Error('the VM shell does not answer');
      warmUp(WARM_UP_ROUNDS);
      return { mode, millis: Math.round(performance.now() - started) };
    },

    // One fork and one exec per command: the interactive shell (job control on) runs it as a background job in
    // its own process group and waits; the shell builtins report the job's pid and exit code as markers on the
    // serial line, so no helper process (no pid file, no rm) runs per command.
    // A command can be killed from the moment it is queued: one killed before its turn never runs.
    exec({ argv, env, cwd, stdin, onKillable }) {
      const job = newJob();
      running.set(job.id, job);
      if (onKillable) onKillable(job.id);
      pending++;
      lastOpAt = performance.now();
      return serialized(() => { pending--; return runCommand({ argv, env, cwd, stdin, job }); })
        .finally(() => { lastOpAt = performance.now(); });
    },

    // Kills a command's whole process group through the control shell on the second UART; a kill that arrives
    // before the shell reported the pid is sent as soon as it does, and one that arrives while the command waits
    // its turn means it never starts.
    kill(id) {
      const job = running.get(id);
      if (!job) return;
      job.killed = true;
      if (job.pid) killGroup(job.pid);
    },

    // Follows symlinks inside the guest's view; returns the resolved guest path (may be outside /workspace).
    resolve(guestPath) {
      let parts = guestPath.split('/').filter(Boolean);
      let resolved = [];
      for (let hops = 0; parts.length > 0;) {
        const name = parts.shift();
        if (name === '.') continue;
        if (name === '..') { resolved.pop(); continue; }
        const candidate = '/' + [...resolved, name].join('/');
        const hit = candidate.startsWith('/workspace') ? lookup(p9(candidate)) : null;
        if (hit) {
          const ino = fs().GetInode(hit.id);
          if ((ino.mode & S_IFMT) === S_IFLNK) {
            if (++hops > 40) throw Object.assign(new Error('too many symlinks'), { code: 'symlink_loop' });
            const target = ino.symlink.split('/').filter(Boolean);
            if (ino.symlink.startsWith('/')) resolved = [];
            parts = [...target, ...parts];
            continue;
          }
        }
        resolved.push(name);
      }
      return '/' + resolved.join('/');
    },

    stat(guestPath) {
      const hit = lookup(p9(guestPath));
      if (!hit) throw Object.assign(new Error(`${guestPath} does not exist`), { code: 'file_not_found' });
      return entryOf(guestPath, hit.id);
    },

    list(guestPath) {
      const hit = lookup(p9(guestPath));
      if (!hit) throw Object.assign(new Error(`${guestPath} does not exist`), { code: 'file_not_found' });
      if (!fs().IsDirectory(hit.id)) throw Object.assign(new Error(`${guestPath} is not a directory`), { code: 'not_a_directory' });
      const names = Array.from(fs().GetInode(hit.id).direntries.keys()).filter((n) => n !== '.' && n !== '..').sort();
      return names.map((n) => entryOf(`${guestPath.replace(/\/$/, '')}/${n}`, fs().Search(hit.id, n)));
    },

    async readFile(guestPath) {
      const e = engine.stat(guestPath);
      if (e.type !== 'file') throw Object.assign(new Error(`${guestPath} is not a regular file`), { code: 'not_a_file' });
      return (await emulator.read_file(p9(guestPath))) || new Uint8Array(0);
    },

    async writeFile(guestPath, bytes) {
      const parent = guestPath.slice(0, guestPath.lastIndexOf('/')) || '/';
      ensureDirs(p9(parent));
      const existing = lookup(p9(guestPath));
      if (existing && fs().IsDirectory(existing.id)) throw Object.assign(new Error(`${guestPath} is a directory`), { code: 'is_a_directory' });
      await emulator.create_file(p9(guestPath), bytes);
    },

    mkdir(guestPath) {
      ensureDirs(p9(guestPath));
    },

    remove(guestPath, recursive) {
      const hit = lookup(p9(guestPath));
      if (!hit) throw Object.assign(new Error(`${guestPath} does not exist`), { code: 'file_not_found' });
      if (fs().IsDirectory(hit.id) && (fs().GetInode(hit.id).direntries.size > 2)) {
        if (!recursive) throw Object.assign(new Error(`${guestPath} is a non-empty directory; delete it recursively`), { code: 'directory_not_empty' });
        fs().RecursiveDelete(p9(guestPath));
      }
      // SearchPath's result carries no usable name (v86 returns the component past the end): take it from the path
      const name = p9(guestPath).split('/').filter(Boolean).pop();
      if (fs().Search(hit.parentid, name) !== -1) fs().Unlink(hit.parentid, name);
    },

    // Every regular file under the workspace (for the OPFS mirror); symlinks and empty directories are skipped.
    async files() {
      const out = [];
      const walk = async (dir) => {
        for (const e of engine.list(dir)) {
          if (e.type === 'directory') await walk(e.path);
          else if (e.type === 'file') out.push({ path: e.path, bytes: await emulator.read_file(p9(e.path)) });
        }
      };
      if (lookup('/workspace')) await walk('/workspace');
      return out;
    },

    async clearWorkspace() {
      for (const e of engine.list('/workspace')) engine.remove(e.path, true);
    },

    async snapshot() {
      return new Uint8Array(await emulator.save_state());
    },

    async stop() {
      if (emulator) { emulator.stop(); await (emulator.destroy ? emulator.destroy() : null); emulator = null; }
    },
  };
  return engine;
}
