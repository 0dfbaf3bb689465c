/**
 * The pattern worker's program, as source: a few lines of plain JavaScript run with
 * `new Worker(source, { eval: true })`, so that it runs the same from the TypeScript sources
 * (tests) and from `dist`. It loads re2js (its path given in `workerData.enginePath`) and
 * matches UTF-8 bytes as they are: nothing is decoded, no string is made.
 */

/**
 * The worker. A `pattern` message compiles a pattern (translated from JavaScript syntax) and is
 * answered `{ compiled }` or `{ invalid: message }`; a batch (the UTF-8 bytes of `count` lines,
 * each but the file's last ending in `\n`) is answered with the indices of the lines that match
 * (without their `\n` and a trailing `\r`) and the bytes themselves, to be filled again.
 *
 * A batch is first tried whole (multi-line), to skip the batches where no line can match without
 * looking at each line. That is sound because a match inside a line is also a match inside the
 * batch, except for the absolute anchors `\A` and `\z` and inline flags that switch multi-line
 * mode off (those patterns go line by line), and for `$` before a `\r` (such batches too).
 */
export const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.enginePath);
let line;
let batch;
function compile({ body, flags }) {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  const source = RE2JS.translateRegExp(body);
  line = RE2JS.compile(source, bits);
  const wholeBatchFirst = !/\\\\[Az]|\\(\\?[a-zA-Z]*-/.test(source);
  batch = wholeBatchFirst ? RE2JS.compile(source, bits | RE2JS.MULTILINE) : undefined;
}
parentPort.on('message', (message) => {
  if (message.pattern) {
    try {
      compile(message.pattern);
      parentPort.postMessage({ compiled: true });
    } catch (error) {
      parentPort.postMessage({ invalid: String(error && error.message ? error.message : error) });
    }
    return;
  }
  // re2js matches UTF-8 bytes as they are: nothing is decoded, no string is made.
  const { data, count } = message;
  const found = [];
  if (!batch || data.includes(13) || batch.test(data)) {
    let start = 0;
    for (let index = 0; index < count; index++) {
      let end = data.indexOf(10, start);
      if (end === -1) end = data.length;
      const stop = end > start && data[end - 1] === 13 ? end - 1 : end;
      if (line.test(data.subarray(start, stop))) found.push(index);
      start = end + 1;
    }
  }
  parentPort.postMessage({ found: Uint32Array.from(found), data }, [data.buffer]);
});
`;
