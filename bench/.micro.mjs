import * as fs from 'node:fs';
const contents = JSON.parse(fs.readFileSync('packages/cli/examples/long-session.json', 'utf8'));
const history = [{ role: 'user', parts: [{ text: 'x' }] }];
let i = 1;
const take = () => {
  history.push(contents[i]);
  i = i + 1 < contents.length ? i + 1 : 1;
};
while (JSON.stringify(history).length < 1_000_000) take();
const body = Buffer.from(
  JSON.stringify({ contents: history, tools: [{ functionDeclarations: [{ name: 'a' }] }] }),
);
const cpu = (f, n = 20) => {
  f();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let k = 0; k < n; k++) f();
  const c = process.cpuUsage(c0);
  return (
    ((c.user + c.system) / 1000 / n).toFixed(2) +
    'ms cpu / ' +
    ((performance.now() - t0) / n).toFixed(2) +
    'ms wall'
  );
};
let s;
console.log(
  'toString',
  cpu(() => {
    s = body.toString('utf8');
  }),
);
let p;
console.log(
  'parse',
  cpu(() => {
    p = JSON.parse(s);
  }),
);
console.log(
  'stringify',
  cpu(() => {
    JSON.stringify(p);
  }),
);
const str = JSON.stringify(p);
console.log(
  'Buffer.from',
  cpu(() => {
    Buffer.from(str, 'utf8');
  }),
);
const { sameJson } = await import('@toolmask/gateway/dist/conversation/same-json.js').catch(
  () => ({}),
);
const p2 = JSON.parse(s);
if (sameJson)
  console.log(
    'sameJson',
    cpu(() => {
      sameJson(p.contents, p2.contents);
    }),
  );
console.log('nonascii', /[^\x00-\x7f]/.test(s), 'bytes', body.length);
