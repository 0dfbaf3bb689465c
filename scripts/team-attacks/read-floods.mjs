/**
 * Read-back floods (finding 8, and two forms helper sec33 is fixing): Bob reads his own big output
 * many times at once, over /mcp and over the dashboard's /api/outputs, while Alice reads hers. Each
 * owner has at most 4 read-backs in flight on a replica; Alice's read must not starve.
 */
import { call, readOutput } from './lib/http.mjs';
import { bobBigOutput, sessionIds } from './lib/probes.mjs';
import { sleep, statusCounts } from './lib/verdict.mjs';

/** Alice's read of her own output on `replica`, started `delayMs` after the call. */
async function aliceReads(world, replica, delayMs) {
  await sleep(delayMs);
  return readOutput(
    replica.url,
    world.keys.alice,
    { file: world.aliceFiles[0], limit: 5 },
    { timeoutMs: 60_000 },
  );
}

const TOO_MANY = /too many reads/;

/**
 * Bob's big output: 28 MB (the review's size) in a full run, 10 MB quick. On a loaded machine a
 * 28 MB save can fail every time (the outputs' connection has 5 s); then the 10 MB one is
 * attacked, and the evidence says so.
 */
async function bigOutput(world, evidence, quick) {
  if (quick) return { file: await bobBigOutput(world, 10), megabytes: 10 };
  try {
    return { file: await bobBigOutput(world, 28), megabytes: 28 };
  } catch (error) {
    evidence.note(`${error.message}: attacked with his 10 MB output instead`);
    return { file: await bobBigOutput(world, 10), megabytes: 10 };
  }
}

const mcpFlood = {
  title: "Bob's 40 parallel /mcp reads of his own big output, Alice reading meanwhile",
  property:
    "read-back floods do not starve another owner: at most 4 of Bob's reads go through at once (the rest refused at once), and Alice's read answers within 5 s",
  async run(world, evidence, { quick }) {
    const { file, megabytes } = await bigOutput(world, evidence, quick);
    const replica = world.r1;
    const bob = Array.from({ length: 40 }, () =>
      readOutput(replica.url, world.keys.bob, { file, limit: 5 }, { timeoutMs: 60_000 }),
    );
    const alice = aliceReads(world, replica, 100);
    const answers = await Promise.all(bob);
    const aliceAnswer = await alice;
    const refused = answers.filter((answer) => TOO_MANY.test(answer.text)).length;
    const read = answers.filter((answer) => answer.ok).length;
    const other = answers.find((answer) => !answer.ok && !TOO_MANY.test(answer.text));
    if (other) evidence.note(`an answer neither read nor refused: ${other.text.slice(0, 120)}`);
    evidence.check(
      refused >= 36,
      `Bob's 40 reads of his ${megabytes} MB output: ${read} read, ${refused} refused at once, ${40 - read - refused} other`,
    );
    evidence.check(
      aliceAnswer.ok && aliceAnswer.ms < 5_000,
      `Alice's read meanwhile: ${aliceAnswer.ok ? 'answered' : `failed (${aliceAnswer.text.slice(0, 80)})`} in ${aliceAnswer.ms} ms`,
    );
  },
};

const fourBigReads = {
  title:
    'Bob keeps 4 reads of a 10 MB output in flight (within his slots) while Alice reads, again and again',
  property:
    "four reads within one owner's slots do not time out another owner's read: each of Alice's reads answers without error within 5 s",
  async run(world, evidence, { quick }) {
    const file = await bobBigOutput(world, 10);
    const replica = world.r2;
    let reading = true;
    const bobAnswers = [];
    const bob = Array.from({ length: 4 }, async () => {
      while (reading) {
        bobAnswers.push(
          await readOutput(replica.url, world.keys.bob, { file, limit: 5 }, { timeoutMs: 60_000 }),
        );
      }
    });
    const rounds = quick ? 4 : 8;
    for (let round = 1; round <= rounds; round++) {
      const alice = await aliceReads(world, replica, 400);
      evidence.check(
        alice.ok && alice.ms < 5_000,
        `Alice's read ${round}: ${alice.ok ? 'answered' : `failed (${alice.text.slice(0, 90)})`} in ${alice.ms} ms`,
      );
    }
    reading = false;
    await Promise.all(bob);
    evidence.note(
      `Bob's reads meanwhile: ${bobAnswers.length}, ${bobAnswers.filter((answer) => answer.ok).length} answered, slowest ${Math.max(...bobAnswers.map((answer) => answer.ms))} ms`,
    );
  },
};

const patternReads = {
  title:
    "Bob's 8 parallel pattern reads (a regex over his 10 MB output), Alice's pattern read meanwhile",
  property:
    "pattern reads share a small worker pool: Bob's patterns over his own big output hold Alice's pattern read up no more than 5 s",
  async run(world, evidence) {
    const file = await bobBigOutput(world, 10);
    const replica = world.r1;
    const bob = Array.from({ length: 8 }, (_, index) =>
      readOutput(
        replica.url,
        world.keys.bob,
        { file, pattern: `(x+x+)+y|line 9999${index}9:` },
        { timeoutMs: 60_000 },
      ),
    );
    await sleep(100);
    const alice = await readOutput(
      replica.url,
      world.keys.alice,
      { file: world.aliceFiles[0], pattern: 'line 7:' },
      { timeoutMs: 60_000 },
    );
    const answers = await Promise.all(bob);
    evidence.check(
      alice.ok && alice.ms < 5_000,
      `Alice's pattern read: ${alice.ok ? 'answered' : `failed (${alice.text.slice(0, 90)})`} in ${alice.ms} ms`,
    );
    evidence.note(
      `Bob's 8: ${answers.filter((answer) => answer.ok).length} answered, ${answers.filter((answer) => TOO_MANY.test(answer.text)).length} refused at once, slowest ${Math.max(...answers.map((answer) => answer.ms))} ms`,
    );
  },
};

const dashboardFlood = {
  title:
    "Bob's 40 parallel dashboard reads (/api/outputs) of his big output, Alice reading meanwhile",
  property:
    "the dashboard's /api/outputs is under the same per-owner read slots: at most 4 of Bob's reads go through at once, and Alice's read answers within 5 s",
  async run(world, evidence, { quick }) {
    const { file } = await bigOutput(world, evidence, quick);
    const replica = world.r2;
    const token = { 'x-toolmask-token': world.keys.bob };
    let found;
    for (const id of await sessionIds(replica.url, world.keys.bob)) {
      const listing = await call(`${replica.url}/api/sessions/${id}/outputs`, { headers: token });
      const name = [...listing.text.matchAll(/"file":"([^"]+)"/g)]
        .map((match) => match[1])
        .find((entry) => file.endsWith(entry) || entry.endsWith(file.split('/').pop()));
      if (name) found = { id, name };
    }
    if (!evidence.check(found !== undefined, `Bob's big output in his dashboard: ${found?.name}`))
      return;
    const path = `/api/outputs?session=${found.id}&file=${encodeURIComponent(found.name)}`;
    const bob = Array.from({ length: 40 }, () =>
      call(`${replica.url}${path}`, { headers: token, timeoutMs: 60_000 }),
    );
    const alice = aliceReads(world, replica, 100);
    const answers = await Promise.all(bob);
    const aliceAnswer = await alice;
    const served = answers.filter((answer) => answer.status === 200).length;
    const errors = answers.filter((answer) => answer.status >= 500 && answer.status !== 503);
    if (errors.length > 0)
      evidence.note(`a server error Bob got: ${errors[0].status} ${errors[0].text.slice(0, 160)}`);
    const refused = answers.filter(
      (answer) => answer.status === 429 || answer.status === 503,
    ).length;
    evidence.check(
      errors.length === 0 && refused >= 30,
      `Bob's 40 reads: ${statusCounts(answers.map((answer) => answer.status))}; ${served} served, ${refused} refused at once (429/503), ${errors.length} server errors`,
    );
    evidence.check(
      aliceAnswer.ok && aliceAnswer.ms < 5_000,
      `Alice's read meanwhile: ${aliceAnswer.ok ? 'answered' : `failed (${aliceAnswer.text.slice(0, 80)})`} in ${aliceAnswer.ms} ms`,
    );
  },
};

const recovery = {
  title: 'after the read floods: how soon each replica serves Alice again',
  property:
    "a replica recovers from another owner's read flood: within 30 s after the floods end, Alice's read-back and her /api/status answer (without error) on r1 and r2",
  async run(world, evidence) {
    const started = Date.now();
    for (const replica of [world.r1, world.r2]) {
      let last = '';
      let recovered = false;
      while (Date.now() - started < 30_000) {
        const read = await aliceReads(world, replica, 0);
        const status = await call(`${replica.url}/api/status`, {
          headers: { 'x-toolmask-token': world.keys.alice },
        });
        last = `read ${read.ok ? 'answered' : read.text.slice(0, 70)}, /api/status ${status.status}`;
        if (read.ok && status.status === 200) {
          recovered = true;
          break;
        }
        await sleep(1_000);
      }
      evidence.check(
        recovered,
        `${replica.name}: ${recovered ? 'serves Alice' : 'still fails'} ${((Date.now() - started) / 1000).toFixed(1)} s after the floods (${last})`,
      );
    }
  },
};

export default [mcpFlood, fourBigReads, patternReads, dashboardFlood, recovery];
