/**
 * What kind of output a tool response is, for the per-kind measurement of issue 25 (section 3):
 * which kinds of output hold the lines agents quote later, and how much of them each strategy's
 * snippets show. The kind is decided by the pass's own classifier
 * (`packages/core/src/services/previews/outputKind.ts`: diff, test or build run, search, source
 * read, log, other; from the tool's name, the call's arguments and the output's text), so a
 * table's kind is the kind of preview toolmask built for the output.
 */
import { responseText } from '@toolmask/cli';
import { OUTPUT_KINDS, classifyOutput, mainStage } from '@toolmask/core/tuning';
import { maskedAtOf, quoteUses, readBacksOf } from './readBacks.mjs';

export const KINDS = OUTPUT_KINDS;
export { classifyOutput, mainStage };

/** The function call of each response id in a flattened session (the latest call of that id). */
export function callsById(flat) {
  const calls = new Map();
  for (const { content } of flat) {
    if (content.role !== 'model') continue;
    for (const part of content.parts ?? []) {
      if (part.functionCall?.id !== undefined) calls.set(part.functionCall.id, part.functionCall);
    }
  }
  return calls;
}

/**
 * Information kept per kind of output, from early-masking moments (every output masked on its
 * own): `{ [kind]: { kept: InformationKept, readBacks: counts } }` over `sessions`, for one
 * strategy. `momentsOf(session)` gives the strategy's moments of a session.
 */
export async function keptPerKind(cli, core, sessions, momentsOf, quotesOf) {
  const perKind = Object.fromEntries(
    KINDS.map((kind) => [
      kind,
      {
        kept: { ...cli.NOTHING_KEPT },
        readBacks: { hidden: 0, readBacks: 0, close: 0, elsewhere: 0, tokens: 0 },
      },
    ]),
  );
  for (const session of sessions) {
    const moments = await momentsOf(session);
    const flat = cli.flattenSession(session);
    const calls = callsById(flat);
    const byKind = new Map(KINDS.map((kind) => [kind, []]));
    for (const moment of moments) {
      const response = moment.original.functionResponse;
      const kind = classifyOutput(
        response.name,
        calls.get(response.id)?.args,
        responseText(moment.original),
      );
      byKind.get(kind).push(moment);
    }
    const quotes = quotesOf(session);
    const maskedAt = maskedAtOf(moments);
    for (const [kind, ofKind] of byKind) {
      if (ofKind.length === 0) continue;
      const entry = perKind[kind];
      entry.kept = cli.addInformationKept(entry.kept, cli.informationKept(session, ofKind, quotes));
      const { readBacks, counts } = readBacksOf(
        core,
        quoteUses(cli, session, ofKind, quotes, maskedAt),
      );
      for (const key of ['hidden', 'readBacks', 'close', 'elsewhere']) {
        entry.readBacks[key] += counts[key];
      }
      entry.readBacks.tokens += readBacks.reduce((sum, readBack) => sum + readBack.tokens, 0);
    }
  }
  return perKind;
}
