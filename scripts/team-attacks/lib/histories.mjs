/**
 * Request bodies the attacks send: bulky Gemini histories whose older outputs a replica masks
 * and saves (so there is something to read back), each output's lines tagged so a read of it can
 * be recognised, and one history carrying a single output of many megabytes.
 */

/** `lines` numbered lines tagged `tag`. */
export function toolText(tag, lines = 2_000) {
  const body = Array.from(
    { length: lines },
    (_, i) => `${tag} line ${i + 1}: compiled unit_${i + 1}.o`,
  );
  return `Output: ${body.join('\n')}\nExit Code: 0`;
}

function call(id, output) {
  return [
    { role: 'model', parts: [{ functionCall: { id, name: 'run_shell_command', args: {} } }] },
    {
      role: 'user',
      parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
    },
  ];
}

/**
 * A Gemini history of `outputs` bulky shell outputs: call ids `<id>-<n>`, output lines tagged
 * `<tag>-<n>` (`tag` defaults to the id, so the text names no call id unless asked).
 */
export function shellHistory(id, outputs = 10, lines = 2_000, tag = id) {
  const contents = [{ role: 'user', parts: [{ text: 'build the project' }] }];
  for (let index = 0; index < outputs; index++) {
    contents.push(...call(`${id}-${index}`, toolText(`${tag}-${index}`, lines)));
  }
  return JSON.stringify({ contents });
}

/**
 * Alice's session: her outputs' text carries the word `ALICESECRET` (never her call ids or file
 * names, so an error that repeats a path is no leak); an answer holding it is one.
 */
export function aliceHistory() {
  return shellHistory('alice', 10, 2_000, 'ALICESECRET');
}

/**
 * One output of about `megabytes` MB, then four bulky ones after it (so the big one is old enough
 * to be masked and saved).
 */
export function bigOutputHistory(tag, megabytes) {
  const lines = Math.ceil((megabytes * 1024 * 1024) / 40);
  const contents = [{ role: 'user', parts: [{ text: `build ${tag}` }] }];
  contents.push(...call(`${tag}-big`, toolText(`${tag}-big`, lines)));
  for (let index = 0; index < 4; index++) {
    contents.push(...call(`${tag}-${index}`, toolText(`${tag}-${index}`, 2_000)));
  }
  return JSON.stringify({ contents });
}
