// The engine seam: the sandbox tab drives its VM only through this interface, so another engine can replace
// v86 without touching the relay. An engine is an object with these async methods (paths are guest paths under
// /workspace; the relay has already refused anything else):
//
//   boot({ onStatus })            -> { mode: 'state' | 'cold', millis }   start the VM; resolves when exec works
//   exec({ argv, env, cwd, stdin, onKillable }) -> { exitCode, stdout: Uint8Array, stderr: Uint8Array }
//   kill(handle)                  ask an exec to stop, running or still queued (handle comes from onKillable, at once)
//   readFile(path) -> Uint8Array  writeFile(path, bytes)   stat(path)   list(path)   mkdir(path)   remove(path, recursive)
//   resolve(path) -> guest path with symlinks followed (the relay refuses results outside /workspace)
//   snapshot() -> Uint8Array      the machine state (engines that cannot snapshot throw)
//   files() -> [{ path, bytes }]  every regular file under /workspace, for the OPFS mirror; restore(files) puts them back
//
// v86 (BSD-2) is the bundled default. A proprietary engine (WebContainers, CheerpX) plugs in by implementing the
// same methods in its own module and registering it here; Paddock ships none of them, bring your own licence.
import { createV86Engine } from './v86-engine.js';

const ENGINES = { v86: createV86Engine };

export function createEngine(name, options) {
  const factory = ENGINES[name];
  if (!factory) throw new Error(`unknown engine '${name}'; available: ${Object.keys(ENGINES).join(', ')}`);
  return factory(options);
}
