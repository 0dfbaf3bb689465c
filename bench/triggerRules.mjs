/**
 * Other warm trigger rules, simulated on the schedule model of the offline optimum
 * (replay/metrics/optimal-schedule.ts), so their share of the optimal savings can be set beside
 * toolmask's own rule (which the bench replays for real). Each rule sees only the past and the
 * present, as a pass does; at a cold request every rule masks everything prunable, as toolmask does.
 *
 * `S` = tokens an event now would save (what is prunable, minus its snippets), `B` = tokens it would
 * re-send uncached (from the first content it changes to the end of the previous request), `C` =
 * the request's tokens, `requestsSoFar` = the requests the (chained) session made before this one. The model counts savings, not prunable estimates, so "S >= 30k" is close
 * to, not the same as, toolmask's `minPrunableTokensThreshold` of 30,000.
 */

/** A rule: (request facts, state carried between requests) → mask now? */
export const TRIGGER_RULES = {
  'S >= 20k': ({ saved }) => saved >= 20_000,
  'S >= 30k': ({ saved }) => saved >= 30_000,
  'S >= 10% of C': ({ saved, context }) => saved >= 0.1 * context,
  'S >= 20% of B': ({ saved, resent }) => saved >= 0.2 * resent,
  // Rent or buy: mask once what keeping S cached has cost since it became prunable (d x S per
  // request) reaches what the break costs ((1 - d) x B), at the discount the replay is priced at.
  'rent or buy': ({ saved, resent, discount }, memory) => {
    memory.rent = (memory.rent ?? 0) + discount * saved;
    return memory.rent >= (1 - discount) * resent;
  },
  // Pay back (issue 34): mask once the saving over the requests the session is likely to go on
  // for, d x S x n, covers what the break costs, (1 - d) x B, with n the requests it has made so
  // far (for heavy-tailed session lengths, a session that has run k requests is about as likely
  // to run k more), or half that.
  'pay back, n = k': ({ saved, resent, discount, requestsSoFar }) =>
    discount * saved * requestsSoFar >= (1 - discount) * resent,
  'pay back, n = k/2': ({ saved, resent, discount, requestsSoFar }) =>
    (discount * saved * requestsSoFar) / 2 >= (1 - discount) * resent,
};

/** The masked prefix after each request when `rule` decides every warm request. */
export function simulateRule(model, rule, discount) {
  const savedBefore = [0];
  for (const output of model.outputs) savedBefore.push(savedBefore.at(-1) + output.savedTokens);
  const states = [];
  let masked = 0;
  let memory = {};
  model.requestLengths.forEach((length, request) => {
    const cold = request === 0 || model.cold[request];
    const end = cold ? model.coldEventEnds[request] : model.warmEventEnds[request];
    if (end > masked && cold) {
      masked = end;
      memory = {};
    } else if (end > masked) {
      const previous = model.requestLengths[request - 1];
      const whole = model.prefixTokens[previous] - savedBefore[masked];
      const firstChanged = model.outputs[masked].contentIndex;
      let firstOutput = masked;
      while (firstOutput > 0 && model.outputs[firstOutput - 1].contentIndex >= firstChanged)
        firstOutput--;
      const cached =
        firstChanged >= previous
          ? whole
          : model.prefixTokens[firstChanged] - savedBefore[firstOutput];
      const facts = {
        saved: savedBefore[end] - savedBefore[masked],
        resent: whole - cached,
        context: model.prefixTokens[length] - savedBefore[masked],
        discount,
        requestsSoFar: request,
      };
      if (rule(facts, memory)) {
        masked = end;
        memory = {};
      }
    }
    states.push(masked);
  });
  return states;
}
