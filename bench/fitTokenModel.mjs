#!/usr/bin/env node
// Fits TOKEN_MODEL.asciiPairCost of packages/core/src/utils/tokens/tokenModel.ts.
//
//   node bench/fitTokenModel.mjs [--traces DIR]
//
// For every item of the "fit" half of the sessions (see bench/tokenAccuracy.mjs) it counts the
// pairs (class of previous code unit, class of current code unit) of the counted string, using the
// estimator's own classifier, and solves a non-negative least-squares problem
//   minimise  sum over items of (sum_pairs count * cost - reference)^2 / reference,   cost >= 0
// for the 7 x 7 ASCII pair costs. The contribution of non-ASCII classes (hand-set costs) is
// subtracted from the reference first. It prints the table to paste into the estimator and the
// fit/held-out errors that the pasted table would give. Nothing is written to disk except the
// reference-count cache of tokenAccuracy.mjs.

import { pathToFileURL } from 'node:url';

import { accuracy, attachReferenceCounts, loadCorpus, loadEstimators } from './tokenAccuracy.mjs';

const ASCII = 7;

function parseArgs(argv) {
  const args = { tracesDir: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--traces') args.tracesDir = argv[++i];
  }
  return args;
}

/**
 * Pair counts (ASCII x ASCII, 49 features) of one string, non-ASCII classes mapped to the ASCII
 * class they borrow costs from, and the fixed part (the hand-set non-ASCII extras).
 */
export function pairFeatures(text, mod) {
  const { tokenCharClass, TOKEN_CLASS_ALIAS, TOKEN_CLASS_EXTRA, TOKEN_CLASS_NAMES } = mod;
  const tail = TOKEN_CLASS_NAMES.indexOf('astralTail');
  const x = new Float64Array(ASCII * ASCII);
  let fixed = 0;
  let prev = TOKEN_CLASS_ALIAS[TOKEN_CLASS_NAMES.indexOf('break')]; // START_CLASS
  for (let i = 0; i < text.length; i++) {
    const cls = tokenCharClass(text.charCodeAt(i));
    const alias = TOKEN_CLASS_ALIAS[cls];
    if (cls !== tail) {
      x[prev * ASCII + alias] += 1;
      fixed += TOKEN_CLASS_EXTRA[cls];
    }
    prev = alias;
  }
  return { x, fixed };
}

/** Non-negative weighted least squares by cyclic coordinate descent on the normal equations. */
export function nnls(
  rows,
  targets,
  weights,
  { ridge = 1e-5, sweeps = 2_000_000, tol = 1e-10 } = {},
) {
  const n = rows[0].length;
  const A = new Float64Array(n * n);
  const b = new Float64Array(n);
  rows.forEach((x, r) => {
    const w = weights[r];
    for (let i = 0; i < n; i++) {
      if (x[i] === 0) continue;
      b[i] += w * x[i] * targets[r];
      for (let j = 0; j < n; j++) A[i * n + j] += w * x[i] * x[j];
    }
  });
  // A small ridge (relative to the mean diagonal) makes the solution unique: pair costs are only
  // determined up to moving cost between "entering" and "leaving" a class.
  let trace = 0;
  for (let i = 0; i < n; i++) trace += A[i * n + i];
  for (let i = 0; i < n; i++) A[i * n + i] += (ridge * trace) / n;
  const beta = new Float64Array(n);
  const grad = new Float64Array(n); // A beta - b
  for (let i = 0; i < n; i++) grad[i] = -b[i];
  for (let sweep = 0; sweep < sweeps; sweep++) {
    let change = 0;
    for (let i = 0; i < n; i++) {
      const aii = A[i * n + i];
      if (aii <= 0) continue;
      const next = Math.max(0, beta[i] - grad[i] / aii);
      const delta = next - beta[i];
      if (delta === 0) continue;
      beta[i] = next;
      for (let j = 0; j < n; j++) grad[j] += A[j * n + i] * delta;
      change = Math.max(change, Math.abs(delta));
    }
    if (change < tol) return { beta, sweeps: sweep + 1 };
  }
  return { beta, sweeps };
}

export async function fitTokenModel({ tracesDir } = {}) {
  const { oursModule: mod } = await loadEstimators();
  const items = await attachReferenceCounts(loadCorpus(tracesDir), {
    log: (m) => process.stderr.write(m + '\n'),
  });
  for (const item of items) Object.assign(item, pairFeatures(item.text, mod));
  const fit = items.filter((item) => item.half === 'fit');
  const { beta, sweeps } = nnls(
    fit.map((item) => item.x),
    fit.map((item) => item.reference - item.fixed),
    fit.map((item) => 1 / item.reference),
  );
  const rounded = Array.from(beta, (v) => Math.round(v * 1000) / 1000);
  const estimate = (item) => item.fixed + item.x.reduce((s, c, i) => s + c * rounded[i], 0);
  const report = {};
  for (const [name, subset] of [
    ['fit', fit],
    ['held-out', items.filter((item) => item.half !== 'fit')],
    ['all', items],
  ]) {
    report[name] = accuracy(subset, estimate);
  }
  const table = [];
  for (let r = 0; r < ASCII; r++) table.push(rounded.slice(r * ASCII, (r + 1) * ASCII));
  return { table, report, sweeps, classes: mod.TOKEN_CLASS_NAMES.slice(0, ASCII) };
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { table, report, sweeps, classes } = await fitTokenModel(parseArgs(process.argv.slice(2)));
  console.log(`converged after ${sweeps} sweeps`);
  console.log('asciiPairCost (row = previous class, column = current class):');
  console.log(`  // ${classes.join('  ')}`);
  table.forEach((row, r) => console.log(`  [${row.join(', ')}], // after ${classes[r]}`));
  for (const [name, m] of Object.entries(report)) {
    console.log(`${name.padEnd(9)} MAPE ${m.mape.toFixed(2)}%  bias ${m.bias.toFixed(2)}%`);
  }
}
