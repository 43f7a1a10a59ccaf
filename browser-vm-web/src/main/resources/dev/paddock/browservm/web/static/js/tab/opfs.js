// Mirrors a sandbox's /workspace into the Origin Private File System, so a reload of the tab gets its files back.
// Best effort: OPFS may be unavailable (private windows) or full; the mirror then says so and the VM goes on.

const ROOT = 'paddock-workspaces';

async function rootDir(create) {
  if (!navigator.storage || !navigator.storage.getDirectory) throw new Error('this browser has no OPFS');
  const opfs = await navigator.storage.getDirectory();
  return opfs.getDirectoryHandle(ROOT, { create });
}

async function dirFor(sandboxId, create) {
  return (await rootDir(create)).getDirectoryHandle(sandboxId, { create });
}

// File names in OPFS are the guest path below /workspace with '/' encoded, so one flat directory holds the tree.
const encode = (path) => encodeURIComponent(path.replace(/^\/workspace\//, ''));
const decode = (name) => `/workspace/${decodeURIComponent(name)}`;

export async function saveMirror(sandboxId, files) {
  const dir = await dirFor(sandboxId, true);
  const keep = new Set();
  for (const { path, bytes } of files) {
    const name = encode(path);
    keep.add(name);
    const handle = await dir.getFileHandle(name, { create: true });
    const w = await handle.createWritable();
    await w.write(bytes);
    await w.close();
  }
  for await (const name of dir.keys()) if (!keep.has(name)) await dir.removeEntry(name);
  return files.length;
}

export async function loadMirror(sandboxId) {
  let dir;
  try {
    dir = await dirFor(sandboxId, false);
  } catch (e) {
    return [];
  }
  const files = [];
  for await (const [name, handle] of dir.entries()) {
    const file = await handle.getFile();
    files.push({ path: decode(name), bytes: new Uint8Array(await file.arrayBuffer()) });
  }
  return files;
}

export async function dropMirror(sandboxId) {
  try {
    await (await rootDir(false)).removeEntry(sandboxId, { recursive: true });
  } catch (e) { /* nothing mirrored */ }
}

// The sandboxes this browser keeps a mirror of: a reopened sandbox tab offers them, so the server can move a
// sandbox whose tab was closed to it.
export async function listMirrors(limit = 32) {
  const ids = [];
  try {
    for await (const name of (await rootDir(false)).keys()) {
      if (/^sbx_[0-9a-z]{26}$/.test(name)) ids.push(name);
      if (ids.length >= limit) break;
    }
  } catch (e) { /* no OPFS or nothing mirrored */ }
  return ids;
}
