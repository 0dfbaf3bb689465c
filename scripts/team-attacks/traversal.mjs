/**
 * Path traversal in every name a caller chooses (tool names, call ids, session ids, model names,
 * the file a read-back names), on a replica whose outputs go to a shared folder: nothing may be
 * written outside that folder, no Redis key may leave its layout, and no read may reach a file
 * outside the outputs.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { call, readOutput } from './lib/http.mjs';
import { sendAs, sessionIds } from './lib/probes.mjs';
import { statusCounts } from './lib/verdict.mjs';
import { keys, startReplica } from './lib/world.mjs';
import { toolText } from './lib/histories.mjs';
import { allKeys, inLayout } from './store.mjs';
import { Redis } from 'ioredis';

const HOSTILE = [
  '../../../../../../tmp/pwned-tm',
  '..\\..\\..\\pwned-tm',
  '/tmp/pwned-tm-abs',
  'a/../../../pwned-tm',
  '....//....//pwned-tm',
  '%2e%2e%2fpwned-tm',
  'pwned-tm\u0000.txt',
  'pwned-tm\nline',
  '..',
  '.',
];

async function filesUnder(root) {
  const found = [];
  async function walk(folder) {
    for (const entry of await fs.readdir(folder, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(full);
    }
  }
  await walk(root);
  return found;
}

function hostileHistory(index, lines = 2_000) {
  const name = HOSTILE[index % HOSTILE.length];
  const contents = [{ role: 'user', parts: [{ text: 'build the project' }] }];
  for (let output = 0; output < 6; output++) {
    const id =
      output % 2 === 0
        ? `${HOSTILE[(index + output) % HOSTILE.length]}-${output}`
        : `plain-${index}-${output}`;
    const tool = output % 3 === 0 ? name : 'run_shell_command';
    contents.push({ role: 'model', parts: [{ functionCall: { id, name: tool, args: {} } }] });
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id,
            name: tool,
            response: { output: toolText(`HANK-${index}-${output}`, lines) },
          },
        },
      ],
    });
  }
  return JSON.stringify({ contents });
}

const traversal = {
  title: 'path traversal in tool names, call ids, session and model names, and read-back paths',
  property:
    'no name a caller chooses leaves its place: nothing is written outside the outputs folder, every Redis key keeps its layout, no read-back or dashboard read reaches a file outside the outputs (/etc/passwd)',
  async run(world, evidence, { quick }) {
    const names = quick ? 5 : HOSTILE.length;
    const lines = quick ? 800 : 2_000;
    const outputs = path.join(world.root, 'shared-outputs');
    await fs.mkdir(outputs, { recursive: true });
    const store = `${world.redis.url}/2`;
    const hank = (await keys(store, 'create', 'hank')).stdout;
    const replica = await startReplica(world, 'r-folder', {
      store,
      extraArgs: ['--outputs', outputs],
    });
    const before = new Set(await filesUnder(world.root));
    const statuses = [];
    try {
      for (let index = 0; index < names; index++) {
        for (let turn = 0; turn < 2; turn++) {
          const sent = await sendAs(world, replica, hank, hostileHistory(index, lines), {
            'x-toolmask-session': HOSTILE[index].replace('\n', '').replace('\u0000', ''),
          });
          statuses.push(sent.status);
        }
      }
      for (const model of ['..%2f..%2fpwned-tm', '..', '%2e%2e']) {
        const answer = await call(`${replica.url}/gemini/v1beta/models/${model}:generateContent`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': hank },
          body: hostileHistory(0, lines),
        });
        statuses.push(answer.status);
      }
      evidence.note(`${statuses.length} requests with hostile names: ${statusCounts(statuses)}`);
      const after = await filesUnder(world.root);
      const outside = after.filter(
        (file) =>
          !before.has(file) && !file.startsWith(outputs + path.sep) && /pwned-tm/.test(file),
      );
      const strays = (await fs.readdir('/tmp')).filter((name) => /pwned-tm/.test(name));
      const saved = after.filter((file) => file.startsWith(outputs + path.sep));
      evidence.check(saved.length > 0, `${saved.length} outputs saved in the shared folder`);
      evidence.check(
        outside.length === 0 && strays.length === 0,
        `files named by a hostile name outside the outputs folder: ${outside.length + strays.length}${[
          ...outside,
          ...strays,
        ]
          .slice(0, 3)
          .map((file) => ` ${file}`)
          .join('')}`,
      );
      const redis = new Redis(store, { maxRetriesPerRequest: 1 });
      try {
        const stored = await allKeys(redis);
        const bad = stored.filter((key) => !inLayout(key) || /(^|\/)\.\.(\/|$)/.test(key.slice(9)));
        evidence.check(
          bad.length === 0,
          `${stored.length} Redis keys, ${bad.length} out of layout${bad.length ? `: ${bad.slice(0, 3).join(', ')}` : ''}`,
        );
      } finally {
        redis.disconnect();
      }
      const ownFile = saved[0] ?? '';
      const reads = [
        '../../../../../../etc/passwd',
        '/etc/passwd',
        '/toolmask-team/tool-outputs/../../../../../etc/passwd',
        '/toolmask-team/tool-outputs/session-0/../../../../../../etc/passwd',
        '%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        `${outputs}/../../../../../etc/passwd`,
        `${path.dirname(ownFile)}/../../../../../../../etc/passwd`,
        'tool-outputs/../../../../etc/passwd',
        'file:///etc/passwd',
        `/proc/self/environ`,
        `/proc/${replica.pid}/environ`,
      ];
      const leaks = [];
      for (const file of reads) {
        for (const args of [{ file }, { file, pattern: 'root' }]) {
          const answer = await readOutput(replica.url, hank, args);
          if (/root:x:0:0|TEAM_ADMIN_KEY=/.test(answer.text)) leaks.push(file);
        }
      }
      const [session] = await sessionIds(replica.url, hank);
      for (const file of reads) {
        const answer = await call(
          `${replica.url}/api/outputs?session=${session}&file=${encodeURIComponent(file)}`,
          { headers: { 'x-toolmask-token': hank } },
        );
        if (/root:x:0:0|TEAM_ADMIN_KEY=/.test(answer.text)) leaks.push(`/api/outputs ${file}`);
      }
      evidence.check(
        leaks.length === 0,
        `${reads.length * 3} reads of /etc/passwd and /proc/*/environ by traversal: ${leaks.length} answered with their content${leaks.length ? `: ${leaks.slice(0, 3).join(', ')}` : ''}`,
      );
    } finally {
      await replica.stop();
    }
  },
};

export default [traversal];
