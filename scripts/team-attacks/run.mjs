#!/usr/bin/env node
/**
 * An adversarial review of the team gateway, as code (issue 33): real replicas (`toolmask gateway
 * --store redis://…` from the built CLI), a real `redis-server` and HAProxy on loopback, attacked
 * by a stranger with no key, a stranger with made-up keys, and a valid user (Bob) against another
 * (Alice). Each attack states the property it checks and prints HELD or FAILED with its evidence;
 * a table ends the run. Exit 1 when any attack failed, 2 on bad usage.
 *
 *   npm run build && node scripts/team-attacks/run.mjs [--only A3,A7] [--quick] [--list]
 *
 * `--quick` runs every attack at a smaller size (fewer requests, smaller bodies, no one-minute
 * wait). docs/reliability.md ("The team attack runner") lists what each attack checks.
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import { CLI, startWorld, stopWorld } from './lib/world.mjs';
import { Evidence } from './lib/verdict.mjs';
import bounds from './bounds.mjs';
import store from './store.mjs';
import isolation from './isolation.mjs';
import keyForms from './key-forms.mjs';
import cookies from './cookies.mjs';
import readFloods from './read-floods.mjs';
import outages from './outages.mjs';
import surface from './surface.mjs';
import traversal from './traversal.mjs';
import mcpArguments from './mcp-arguments.mjs';
import atRest from './at-rest.mjs';
import proofs from './proofs.mjs';
import bodyBudget from './body-budget.mjs';
import providerStores from './provider-stores.mjs';

const FAMILIES = [
  bounds,
  store,
  isolation,
  keyForms,
  cookies,
  readFloods,
  outages,
  surface,
  traversal,
  mcpArguments,
  atRest,
  // After the others, so that the ids the docs name (A1 to A37) stay as they were.
  proofs,
  bodyBudget,
  providerStores,
];
const ATTACKS = FAMILIES.flatMap((family) => family);
ATTACKS.forEach((attack, index) => (attack.id = `A${index + 1}`));

/** How long one attack may run before it counts as FAILED (a hung replica, say). */
const ATTACK_TIMEOUT_MS = 150_000;

function parseArgs(argv) {
  const options = { quick: false, only: undefined, list: false };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--list') options.list = true;
    else if (arg === '--only') options.only = (argv[++index] ?? '').split(',');
    else if (arg.startsWith('--only=')) options.only = arg.slice(7).split(',');
    else throw new Error(`unknown argument ${arg} (expected --only A1,A2, --quick, --list)`);
  }
  if (options.only) {
    options.only = options.only.map((id) => id.trim().toUpperCase()).filter(Boolean);
    const unknown = options.only.filter((id) => !ATTACKS.some((attack) => attack.id === id));
    if (unknown.length > 0) {
      throw new Error(`--only: no attack ${unknown.join(', ')} (A1 to A${ATTACKS.length})`);
    }
  }
  return options;
}

function pad(text, width) {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

async function runAttack(attack, world, options) {
  const evidence = new Evidence();
  const started = Date.now();
  let timer;
  try {
    await Promise.race([
      attack.run(world, evidence, options),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no verdict within ${ATTACK_TIMEOUT_MS / 1000} s`)),
          ATTACK_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    evidence.check(false, `the attack could not finish: ${error?.stack ?? error}`);
  } finally {
    clearTimeout(timer);
  }
  return { attack, evidence, seconds: (Date.now() - started) / 1000 };
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`team-attacks: ${error.message}`);
    return 2;
  }
  if (options.list) {
    for (const attack of ATTACKS)
      console.log(`${attack.id}\t${attack.title}\n\t${attack.property}`);
    return 0;
  }
  if (!existsSync(CLI)) {
    console.error(`team-attacks: ${CLI} is missing: run npm run build first`);
    return 2;
  }
  const chosen = ATTACKS.filter((attack) => !options.only || options.only.includes(attack.id));
  const started = Date.now();
  console.log(
    `team attacks: ${chosen.length} of ${ATTACKS.length}${options.quick ? ' (quick)' : ''}; ` +
      `${new Date().toISOString()}; load average ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  const world = await startWorld();
  console.log(
    `world: redis ${world.redis.url}, replicas ${world.replicas.map((r) => `${r.name} ${r.url}`).join(', ')}, haproxy ${world.haproxy.url}; Alice's masked outputs: ${world.aliceFiles.length} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
  const results = [];
  try {
    for (const attack of chosen) {
      const result = await runAttack(attack, world, options);
      results.push(result);
      const verdict = result.evidence.held ? 'HELD' : 'FAILED';
      console.log(`${attack.id} ${verdict} (${result.seconds.toFixed(1)} s) ${attack.title}`);
      console.log(`   property: ${attack.property}`);
      for (const line of result.evidence.lines()) console.log(`   ${line}`);
      console.log('');
    }
  } finally {
    await stopWorld(world);
  }
  const width = Math.max(...results.map((result) => result.attack.title.length), 5);
  console.log(`${pad('id', 4)} ${pad('verdict', 7)} ${pad('s', 6)} ${pad('attack', width)}`);
  for (const { attack, evidence, seconds } of results) {
    console.log(
      `${pad(attack.id, 4)} ${pad(evidence.held ? 'HELD' : 'FAILED', 7)} ${pad(seconds.toFixed(1), 6)} ${attack.title}`,
    );
  }
  const failed = results.filter((result) => !result.evidence.held);
  console.log(
    `\n${results.length - failed.length} held, ${failed.length} failed` +
      `${failed.length ? ` (${failed.map((result) => result.attack.id).join(', ')})` : ''}; ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s; load average ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  return failed.length > 0 ? 1 : 0;
}

// Exit at once: a socket an attack left half-open must not keep the run alive.
process.exit(await main());
