/**
 * CPU by pipeline step, for bench/coldPassInProcess.mjs `--steps`: the methods of the gateway's and
 * core's classes that make up a model request are wrapped, and the CPU of this process between a
 * call and its end (its promise's, for an async one) is added to the step's total (the outermost
 * call only, when a step calls itself). The gateway handles one request at a time in the bench, so
 * what runs while an async step waits is that step's own work, or the writes of the request
 * before it (the bench lets them finish first).
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

/** [module under a package's dist, class, methods, step name]. */
const STEPS = [
  [
    'gateway',
    'body/incremental-body.js',
    'IncrementalBody',
    ['read'],
    'body: decode (incremental reader)',
  ],
  [
    'gateway',
    'body/incremental-body.js',
    'IncrementalBody',
    ['write'],
    'body: serialise the body to send',
  ],
  [
    'gateway',
    'conversation/conversation.js',
    'Conversation',
    ['prepareInTurn'],
    'conversation: whole pass (below)',
  ],
  [
    'gateway',
    'conversation/sent-history.js',
    'SentHistory',
    ['apply'],
    '  sent history + decision log apply (output keys)',
  ],
  [
    'core',
    'services/toolOutputMaskingService.js',
    'ToolOutputMaskingService',
    ['mask'],
    '  core pass (below)',
  ],
  [
    'core',
    'services/maskingPass/passPlanning.js',
    'PassPlanning',
    ['ledgerFor'],
    '    ledger (token estimates)',
  ],
  [
    'core',
    'services/maskingPass/passPlanning.js',
    'PassPlanning',
    ['supersededFor'],
    '    superseded outputs',
  ],
  [
    'core',
    'services/maskingPass/passPlanning.js',
    'PassPlanning',
    ['plan'],
    '    planning (ledger + superseded + choice)',
  ],
  [
    'core',
    'services/maskingPass/passPlanning.js',
    'PassPlanning',
    ['afterPass'],
    '    ledger after the pass',
  ],
  [
    'gateway',
    'conversation/durable-decisions.js',
    'DurableDecisions',
    ['save'],
    '  decision log: records saved',
  ],
  ['gateway', 'conversation/decision-log.js', 'DecisionLog', ['tally'], '  decision log: tally'],
  [
    'gateway',
    'conversation/conversation.js',
    'Conversation',
    ['finish'],
    'state after the answer (meta)',
  ],
];

export async function instrumentSteps(gatewayDist) {
  const dists = { gateway: gatewayDist, core: path.join(gatewayDist, '../../core/dist') };
  const totals = new Map();
  for (const [pkg, file, className, methods, step] of STEPS) {
    const module = await import(pathToFileURL(path.join(dists[pkg], file)).href);
    const prototype = module[className]?.prototype;
    if (!prototype) continue;
    totals.set(step, 0);
    let depth = 0;
    for (const method of methods) {
      const original = prototype[method];
      if (typeof original !== 'function') continue;
      prototype[method] = function (...args) {
        if (depth > 0) return original.apply(this, args);
        depth++;
        const since = process.cpuUsage();
        const done = () => {
          depth--;
          const used = process.cpuUsage(since);
          totals.set(step, totals.get(step) + (used.user + used.system) / 1000);
        };
        let value;
        try {
          value = original.apply(this, args);
        } catch (error) {
          done();
          throw error;
        }
        if (value && typeof value.then === 'function') return value.finally(done);
        done();
        return value;
      };
    }
  }
  return {
    /** The totals since the last take, in ms, and zeroed. */
    take() {
      const taken = new Map(totals);
      for (const key of totals.keys()) totals.set(key, 0);
      return taken;
    },
  };
}
