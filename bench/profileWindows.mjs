/**
 * Where a gateway's CPU went inside given time windows (bench/incrementalCpu.mjs `--windows`):
 * the samples of a V8 CPU profile taken inside them, idle left out, by function, self and
 * inclusive (a function counted once per sample however often it is on the stack). Under load a
 * sample's time is wall time (a process waiting for the CPU is charged to what it was running),
 * so only the order of the figures is meant.
 *
 *   node bench/profileWindows.mjs PROFILE.cpuprofile WINDOWS.json [--top N]
 */
import * as fs from 'node:fs';

const [profileFile, windowsFile] = process.argv.slice(2);
const topIndex = process.argv.indexOf('--top');
const top = topIndex >= 0 ? Number(process.argv[topIndex + 1]) : 30;
const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
const windows = JSON.parse(fs.readFileSync(windowsFile, 'utf8'));

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parents.set(child, node.id);
const nameOf = ({ callFrame }) =>
  `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`;

// Each sample's time is the delta to the next one; samples and windows are both in time order.
const byNode = new Map();
let at = profile.startTime;
let windowIndex = 0;
for (let index = 0; index < profile.samples.length; index++) {
  at += profile.timeDeltas[index];
  while (windowIndex < windows.length && windows[windowIndex][1] < at) windowIndex++;
  if (windowIndex >= windows.length) break;
  if (at < windows[windowIndex][0]) continue;
  const id = profile.samples[index];
  byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
}

const self = new Map();
const inclusive = new Map();
let busyUs = 0;
for (const [id, us] of byNode) {
  const name = nameOf(nodes.get(id));
  if (name.startsWith('(idle)')) continue;
  busyUs += us;
  self.set(name, (self.get(name) ?? 0) + us);
  const seen = new Set();
  for (let node = id; node !== undefined; node = parents.get(node)) {
    const frame = nameOf(nodes.get(node));
    if (seen.has(frame)) continue;
    seen.add(frame);
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + us);
  }
}

const print = (title, figures) => {
  console.log(`== ${title}`);
  for (const [name, us] of [...figures].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms  ${name}`);
  }
};
console.log(
  `busy in ${windows.length} windows: ${(busyUs / 1000).toFixed(0)} ms, ${(busyUs / 1000 / windows.length).toFixed(2)} ms a window`,
);
print('self', self);
print('inclusive', inclusive);
