import { describe, expect, it } from 'vitest';
import { optimalSchedule, scheduleCost, type ScheduleModel } from './optimal-schedule.js';

/**
 * Contents (tokens): c0 prompt 10, c1 model 5, c2 output A 100, c3 model 5, c4 output B 100,
 * c5 model 5, c6 output C 20. Requests r0..r3 send 1, 3, 5 and 7 contents (10, 115, 220 and 245
 * tokens). Masking A saves 90 tokens, masking B 60; A is prunable from r2 on, B from r3 on.
 */
const model: ScheduleModel = {
  prefixTokens: [0, 10, 15, 115, 120, 220, 225, 245],
  requestLengths: [1, 3, 5, 7],
  cold: [true, false, false, false],
  outputs: [
    { contentIndex: 2, partIndex: 0, savedTokens: 90 },
    { contentIndex: 4, partIndex: 0, savedTokens: 60 },
  ],
  warmEventEnds: [0, 0, 1, 2],
  coldEventEnds: [0, 0, 1, 2],
};

describe('scheduleCost and optimalSchedule (computed by hand)', () => {
  it('prices schedules like the replay engine', () => {
    // Never mask: 10 + (115 - 0.9·10) + (220 - 0.9·115) + (245 - 0.9·220)
    expect(scheduleCost(model, [0, 0, 0, 0], 0.1).billedTokens).toBeCloseTo(279.5);
    // Mask A at r2: 130 - 0.9·15 (re-sent from c2 on); r3 caches all of r2: 155 - 0.9·130
    expect(scheduleCost(model, [0, 0, 1, 1], 0.1).billedTokens).toBeCloseTo(270.5);
    // Mask A and B at r3 at once: r3 = 95 - 0.9·15 = 81.5
    expect(scheduleCost(model, [0, 0, 0, 2], 0.1).billedTokens).toBeCloseTo(314);
    // A at r2, then B at r3: r3 caches c0..c3 as masked (15 + 105 - 90 = 30): 95 - 0.9·30
    const twice = scheduleCost(model, [0, 0, 1, 2], 0.1);
    expect(twice.billedTokens).toBeCloseTo(300.5);
    expect(twice).toMatchObject({ events: 2, cacheBreaks: 2, inputTokens: 10 + 115 + 130 + 95 });
  });

  it('finds the cheapest schedule, which depends on the discount', () => {
    const cheap = optimalSchedule(model, 0.1);
    expect(cheap.billedTokens).toBeCloseTo(270.5);
    expect(cheap.states).toEqual([0, 0, 1, 1]);
    // With cached tokens at half price, masking B at r3 too pays: 10 + 110 + 122.5 + 80
    // (keeping it: r3 = 155 - 0.5·130 = 90)
    const dear = optimalSchedule(model, 0.5);
    expect(dear.billedTokens).toBeCloseTo(322.5);
    expect(dear.states).toEqual([0, 0, 1, 2]);
  });

  it('masks for free at a cold request, with the cold-moment window', () => {
    const coldLast: ScheduleModel = {
      ...model,
      cold: [true, false, false, true],
      warmEventEnds: [0, 0, 0, 1],
      coldEventEnds: [0, 0, 0, 2],
    };
    const best = optimalSchedule(coldLast, 0.1);
    // r3 is cold: nothing is cached anyway, so it masks both (95) rather than only A (155).
    expect(best.states).toEqual([0, 0, 0, 2]);
    expect(best.billedTokens).toBeCloseTo(10 + 106 + 116.5 + 95);
    expect(best.cacheBreaks).toBe(0);
  });

  it('matches a brute-force search over every schedule', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 40; trial++) {
      const contents = 12;
      const prefixTokens = [0];
      for (let index = 0; index < contents; index++) {
        prefixTokens.push((prefixTokens.at(-1) as number) + 5 + Math.floor(random() * 200));
      }
      const outputs = [1, 3, 5, 7, 9].map((contentIndex) => ({
        contentIndex,
        partIndex: 0,
        savedTokens: Math.floor(random() * 100),
      }));
      const requestLengths = [1, 3, 5, 7, 9, 11, 12];
      const warmEventEnds = [0, 0, 1, 1, 2, 3, 4];
      const cold = requestLengths.map((_, index) => index === 0 || random() < 0.2);
      const coldEventEnds = warmEventEnds.map((end, index) =>
        Math.min(5, end + (index > 2 ? 1 : 0)),
      );
      const candidate: ScheduleModel = {
        prefixTokens,
        requestLengths,
        cold,
        outputs,
        warmEventEnds,
        coldEventEnds,
      };
      const discount = random() < 0.5 ? 0.1 : 0.25;
      let best = Infinity;
      const search = (request: number, state: number, states: number[]) => {
        if (request === requestLengths.length) {
          best = Math.min(best, scheduleCost(candidate, states, discount).billedTokens);
          return;
        }
        const options = new Set([state, Math.max(state, warmEventEnds[request] as number)]);
        if (cold[request]) options.add(Math.max(state, coldEventEnds[request] as number));
        for (const next of options) search(request + 1, next, [...states, next]);
      };
      search(0, 0, []);
      expect(optimalSchedule(candidate, discount).billedTokens).toBeCloseTo(best, 6);
    }
  });
});
