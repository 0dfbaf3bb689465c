/**
 * Effective billed input (section 3, issue 25): billed input plus what reading back hidden lines
 * would cost. A masked output's line that the recorded agent quotes later in its task
 * (quoted-lines.ts, the detection information-kept.ts uses) and that its snippet no longer shows
 * is one the agent must read back before the turn that quotes it, unless the context shows it
 * elsewhere at that turn.
 *
 * One read-back, placed at the request that produced the first turn quoting the line after the
 * masking (request r), costs:
 * - one extra request: request r's context at the cached-prefix price (discount x its tokens),
 *   plus the call and its result uncached;
 * - the call: a `read_tool_output` function call with a path, `offset` and `limit: 41`;
 * - the result: the quoted line and the 20 lines either side of it, from the output's text (the
 *   `output` string, or the pretty JSON), each line cut at 2,000 characters, with the reader's
 *   footer line (`[read_tool_output: lines a-b of n, ...]`), as `read_tool_output` returns a range.
 *   Call and result stay in the context for the rest of the session: every later request of the
 *   session carries them, at the discount on a warm request and at the full price on a cold one or
 *   one whose cache the pass broke.
 *
 * Quotes that need no read-back:
 * - close together: a hidden line of the same output inside a slice read back at or before the
 *   request of its own first quote (within 20 lines of a line read back);
 * - seen elsewhere: a line the context shows at the quoting turn outside the masked output: in the
 *   text or call arguments of an earlier content of the task (the agent wrote or quoted it itself
 *   before the masking), or in another tool output of the task, sent after the masked one and not
 *   masked by the strategy by then (a later read of the same file).
 *
 * Tokens are counted with the replay's estimator (`estimateTokenCountSync`). Only the input side
 * is priced (the call's output tokens are not), as everywhere in section 3; the slice is never
 * masked again. Both strategies are priced the same way, although gemini-cli's file holds a shell
 * output as one JSON string (a line range of it is the whole output): that favours gemini-cli.
 */
import { findRequestPoints, lineKey, quotableText, responseText } from '@toolmask/cli';

export const READ_BACK = {
  /** Lines returned either side of the quoted line. */
  contextLines: 20,
  /** Characters kept of one line, as `read_tool_output` cuts them. */
  maxLineChars: 2_000,
  /** The path in the call: a saved output's path of typical length (the same for every call). */
  path: '/tmp/toolmask-bench-abcdef/tool-outputs/session-0123456789ab/run_shell_command_0123456789abcdef.txt',
};

/** Undoes JSON string escapes, as information-kept.ts does before it looks for a line. */
const unescapeJsonText = (text) =>
  text.replace(/\\(["\\/nrt])/g, (_, escaped) =>
    escaped === 'n' ? '\n' : escaped === 'r' ? '\r' : escaped === 't' ? '\t' : escaped,
  );

/** The text of a content as the model reads it besides tool outputs. */
function memo(map, key, make) {
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    map.set(key, value);
  }
  return value;
}
const quotableOf = new WeakMap();
const outputsOf = new WeakMap();
const outputText = (content) =>
  (content.parts ?? [])
    .filter((part) => part.functionResponse)
    .map((part) => responseText(part))
    .join('\n');

/**
 * For each moment that masked an output (not one left whole): the lines quoted later in its task
 * (as information-kept.ts counts them), how many the snippet shows, and each hidden one with its
 * position in the output, its first quote after the masking and whether the context shows it
 * elsewhere then. `maskedAt(contentIndex)`: the request at which the strategy masked that content,
 * or undefined.
 */
export function quoteUses(cli, session, moments, quotes, maskedAt = () => undefined) {
  const flat = cli.flattenSession(session);
  const points = findRequestPoints(flat);
  /** The request that produced the model content at `index`: the last one sent before it. */
  const requestBefore = (index) => {
    let low = 0;
    let high = points.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (points[middle].index < index) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const uses = [];
  for (const moment of moments) {
    if (moment.masked === moment.original) continue;
    const sentAt = points[moment.request].index;
    const task = flat[moment.contentIndex].task;
    const text = responseText(moment.original);
    const rawLines = text.split('\n');
    // Compared as information-kept.ts compares them: line-number prefix stripped, trimmed.
    const trimmed = rawLines.map(lineKey);
    const snippet = responseText(moment.masked);
    const readable = unescapeJsonText(snippet);
    const use = { moment, task, text, rawLines, quoted: 0, visible: 0, hidden: [] };
    const seen = new Set();
    for (const line of trimmed) {
      if (line.length < 12 || seen.has(line)) continue;
      seen.add(line);
      if (quotes.lastQuote(line, task) <= sentAt) continue;
      use.quoted++;
      if (snippet.includes(line) || readable.includes(line)) {
        use.visible++;
        continue;
      }
      let quote = sentAt + 1;
      while (
        quote < flat.length &&
        !(
          flat[quote].content.role === 'model' &&
          memo(quotableOf, flat[quote].content, quotableText).includes(line)
        )
      ) {
        quote++;
      }
      const request = requestBefore(quote);
      let elsewhere = false;
      for (let index = quote - 1; index >= 0 && flat[index].task === task && !elsewhere; index--) {
        if (index === moment.contentIndex) continue;
        const content = flat[index].content;
        if (memo(quotableOf, content, quotableText).includes(line)) elsewhere = true;
        else if (index > moment.contentIndex && !(maskedAt(index) <= request)) {
          elsewhere = memo(outputsOf, content, outputText).includes(line);
        }
      }
      use.hidden.push({ line, position: trimmed.indexOf(line), quote, request, elsewhere });
    }
    uses.push(use);
  }
  return uses;
}

function sliceOf(core, rawLines, position) {
  const first = Math.max(0, position - READ_BACK.contextLines);
  const last = Math.min(rawLines.length - 1, position + READ_BACK.contextLines);
  const lines = rawLines
    .slice(first, last + 1)
    .map((line) =>
      line.length > READ_BACK.maxLineChars ? line.slice(0, READ_BACK.maxLineChars) : line,
    );
  const more = last + 1 < rawLines.length;
  const footer = `[read_tool_output: lines ${first + 1}-${last + 1} of ${rawLines.length}${more ? `; call again with offset=${last + 2} for more` : ', end of output'}]`;
  const call = {
    functionCall: {
      name: 'read_tool_output',
      args: { path: READ_BACK.path, offset: first + 1, limit: last - first + 1 },
    },
  };
  const result = {
    functionResponse: {
      name: 'read_tool_output',
      response: { output: [...lines, footer].join('\n') },
    },
  };
  return {
    first,
    last,
    tokens: core.estimateTokenCountSync([call]) + core.estimateTokenCountSync([result]),
  };
}

/**
 * The read-backs `uses` imply, in order: `{ request, tokens, contentIndex }`, with counts of the
 * hidden quoted lines and of those that needed none (close to a line read back, seen elsewhere).
 */
export function readBacksOf(core, uses) {
  const readBacks = [];
  const counts = { hidden: 0, readBacks: 0, close: 0, elsewhere: 0 };
  for (const use of uses) {
    const slices = [];
    const hidden = [...use.hidden].sort((a, b) => a.quote - b.quote || a.position - b.position);
    for (const line of hidden) {
      counts.hidden++;
      if (line.elsewhere) {
        counts.elsewhere++;
        continue;
      }
      const covered = slices.some(
        (slice) =>
          slice.request <= line.request &&
          line.position >= slice.first &&
          line.position <= slice.last,
      );
      if (covered) {
        counts.close++;
        continue;
      }
      const slice = { ...sliceOf(core, use.rawLines, line.position), request: line.request };
      slices.push(slice);
      counts.readBacks++;
      readBacks.push({
        request: line.request,
        tokens: slice.tokens,
        contentIndex: use.moment.contentIndex,
      });
    }
  }
  return { readBacks, counts };
}

/**
 * Billed tokens the read-backs add at `discount`, from the strategy's request rows of the session
 * (`RequestRow[]`, in request order).
 */
export function readBackBilled(readBacks, rows, discount) {
  let extra = 0;
  for (const { request, tokens } of readBacks) {
    extra += discount * rows[request].contextTokens + tokens;
    for (let later = request + 1; later < rows.length; later++) {
      const row = rows[later];
      extra += (row.cacheCold || row.cacheBreak ? 1 : discount) * tokens;
    }
  }
  return extra;
}

/** The request at which each content was first masked, from a strategy's moments. */
export function maskedAtOf(moments) {
  const first = new Map();
  for (const moment of moments) {
    if (moment.masked === moment.original) continue;
    if (!first.has(moment.contentIndex)) first.set(moment.contentIndex, moment.request);
  }
  return (contentIndex) => first.get(contentIndex);
}

export const NO_READ_BACKS = Object.freeze({
  readBacks: 0,
  tokens: 0,
  hidden: 0,
  close: 0,
  elsewhere: 0,
  extra: {},
});

export function addReadBacks(a, b) {
  const extra = { ...a.extra };
  for (const [discount, value] of Object.entries(b.extra)) {
    extra[discount] = (extra[discount] ?? 0) + value;
  }
  return {
    readBacks: a.readBacks + b.readBacks,
    tokens: a.tokens + b.tokens,
    hidden: a.hidden + b.hidden,
    close: a.close + b.close,
    elsewhere: a.elsewhere + b.elsewhere,
    extra,
  };
}

/**
 * Read-backs of one replayed strategy over a folder's sessions: `{ readBacks, tokens, hidden,
 * close, elsewhere, extra: { [discount]: billed tokens added } }`. `entry` is what replayFolders
 * returns per strategy (its moments and request rows). Checks that the lines counted here are the
 * ones information-kept.ts counts.
 */
export function readBacksOver(cli, core, sessions, entry, quotesOf, discounts) {
  let total = { ...NO_READ_BACKS, extra: {} };
  for (const session of sessions) {
    const moments = entry.moments(session.id);
    if (moments.length === 0) continue;
    const quotes = quotesOf(session);
    const uses = quoteUses(cli, session, moments, quotes, maskedAtOf(moments));
    const kept = cli.informationKept(session, moments, quotes);
    const quoted = uses.reduce((sum, use) => sum + use.quoted, 0);
    const visible = uses.reduce((sum, use) => sum + use.visible, 0);
    if (quoted !== kept.linesQuotedLater || visible !== kept.linesVisible) {
      throw new Error(
        `read-backs of ${session.id}: ${quoted} quoted / ${visible} visible, information kept says ${kept.linesQuotedLater} / ${kept.linesVisible}`,
      );
    }
    const { readBacks, counts } = readBacksOf(core, uses);
    const rows = entry.requests(session.id);
    total = addReadBacks(total, {
      readBacks: counts.readBacks,
      tokens: readBacks.reduce((sum, readBack) => sum + readBack.tokens, 0),
      hidden: counts.hidden,
      close: counts.close,
      elsewhere: counts.elsewhere,
      extra: Object.fromEntries(
        discounts.map((discount) => [discount, readBackBilled(readBacks, rows, discount)]),
      ),
    });
  }
  return total;
}
