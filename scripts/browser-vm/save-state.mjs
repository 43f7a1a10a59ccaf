// Boots the browser-vm image once in node (same emulator build and options as the sandbox tab), waits for the
// ready marker on the serial console and saves the machine state, so tabs restore it instead of cold-booting.
// Usage: node save-state.mjs ASSET_DIR   (writes ASSET_DIR/state.bin and ASSET_DIR/vm.json)
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dir = path.resolve(process.argv[2]);
const { V86 } = await import(pathToFileURL(path.join(dir, "libv86.mjs")).href);

// The tab must create the emulator with exactly these options for the saved state to fit.
const vm = {
  memory_size: 128 * 1024 * 1024,
  vga_memory_size: 2 * 1024 * 1024,
  uart1: true,
  cmdline: "console=ttyS0 tsc=reliable mitigations=off cryptomgr.notests=1 noisapnp quiet init_on_free=1",
};
fs.writeFileSync(path.join(dir, "vm.json"), JSON.stringify(vm, null, 2));

const buffer = (f) => ({ buffer: fs.readFileSync(path.join(dir, f)).buffer });
const started = Date.now();
const emulator = new V86({
  wasm_path: path.join(dir, "v86.wasm"),
  memory_size: vm.memory_size,
  vga_memory_size: vm.vga_memory_size,
  bios: buffer("bios.bin"),
  vga_bios: buffer("vgabios.bin"),
  bzimage: buffer("bzImage"),
  initrd: buffer("initrd.img"),
  cmdline: vm.cmdline,
  uart1: vm.uart1,
  filesystem: {},
  autostart: true,
  disable_keyboard: true,
  disable_mouse: true,
  disable_speaker: true,
});

let tail = "";
const timer = setTimeout(() => {
  console.error("the VM did not become ready within 180 s; serial tail:\n" + tail.slice(-2000));
  process.exit(1);
}, 180_000);

await new Promise((resolve) => {
  emulator.add_listener("serial0-output-byte", (b) => {
    tail = (tail + String.fromCharCode(b)).slice(-4096);
    if (tail.includes("@@PADDOCK-READY@@")) resolve();
  });
});
// let the shell print its prompt and go idle before the snapshot
await new Promise((r) => setTimeout(r, 1500));
emulator.stop();
const state = await emulator.save_state();
fs.writeFileSync(path.join(dir, "state.bin"), Buffer.from(state));
clearTimeout(timer);
console.error(`booted and saved state in ${((Date.now() - started) / 1000).toFixed(1)} s (${(state.byteLength / 1e6).toFixed(1)} MB raw)`);
await emulator.destroy?.();
process.exit(0);
